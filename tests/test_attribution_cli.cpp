// Several VMs in one trace, and the CLI's events/stats/record commands.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "helpers.hpp"
#include "mail_wrap.hpp"
#include "record_helpers.hpp"
#include "irqflow/capture/readers.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// Shifts the tid column of a trace-cmd report ("comm-TID [cpu] …") by delta.
std::string shift_tids(const std::string& report, int delta) {
    std::istringstream in(report);
    std::string line, out;
    while (std::getline(in, line)) {
        auto open = line.find(" [");
        auto dash = line.rfind('-', open);
        if (open != std::string::npos && dash != std::string::npos) {
            int tid = std::stoi(line.substr(dash + 1, open - dash - 1));
            line = line.substr(0, dash + 1) + std::to_string(tid + delta) + line.substr(open);
        }
        out += line + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("two VMs in one trace are kept apart", "[attribution][samples]") {
    // Two real captures as if recorded on one host: the second QEMU's threads get
    // higher tids; the streams interleave in time.
    const std::string a = run("trace-cmd report -t '" + sample("pveoi-on.dat") + "'").out;
    const std::string b = shift_tids(run("trace-cmd report -t '" + sample("pvipi-off.dat") + "'").out, 5000);
    auto path = scratch("two-vms.txt");
    write_file(path, a + b);  // concatenated; the reader keeps file order as record order
    Trace t = load_trace(path.string());
    REQUIRE(t.vms.size() == 2);
    CHECK(t.vms[0].vcpus.size() == 4);
    CHECK(t.vms[1].vcpus.size() == 4);
    Trace ta = load_trace(sample("pveoi-on.dat"));
    Trace tb = load_trace(sample("pvipi-off.dat"));
    REQUIRE(t.events.size() == ta.events.size() + tb.events.size());
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const Event& e = t.events[i];
        const Event& orig = i < ta.events.size() ? ta.events[i] : tb.events[i - ta.events.size()];
        REQUIRE(e.vm.value() == (orig.vm == kUnknownVm ? -1 : i < ta.events.size() ? 0 : 1));
        REQUIRE(e.vcpu == orig.vcpu);
    }
}

TEST_CASE("stats --json has every event name and lost events and per-vCPU counts and exit reasons", "[cli][samples]") {
    auto r = run(cli() + " stats --json '" + sample("lost.dat") + "'");
    REQUIRE(r.status == 0);
    for (const char* key : {"\"events\":{", "\"kvm_exit\":", "\"kvm_pv_eoi\":", "\"lost_events\":", "\"vcpus\":[",
                            "\"exits_by_reason\":{", "\"EXIT_HLT\":"})
        CHECK(r.out.find(key) != std::string::npos);
    Trace t = load_trace(sample("lost.dat"));
    CHECK(r.out.find("\"kvm_exit\":" + std::to_string(t.counts_by_name().at("kvm_exit"))) != std::string::npos);
}

TEST_CASE("events filters by vCPU and kind and interleaves serial lines", "[cli][samples]") {
    auto r = run(cli() + " events --vcpu 2 --kind kvm_inj_virq '" + sample("pveoi-on.dat") + "'");
    REQUIRE(r.status == 0);
    std::istringstream in(r.out);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        REQUIRE(line.find(" vm0/vcpu2 kvm_inj_virq ") != std::string::npos);
    }
    Trace t = load_trace(sample("pveoi-on.dat"));
    int expect = 0;
    for (const auto& e : t.events) expect += e.kind == EventKind::InjVirq && e.vcpu.value() == 2;
    CHECK(n == expect);
    auto s = run(cli() + " events --json --serial '" + sample("pveoi-on-serial.log") + "' '" + sample("pveoi-on.dat") + "'");
    REQUIRE(s.status == 0);
    CHECK(s.out.find("\"name\":\"serial\",\"line\":1,") != std::string::npos);
    CHECK(s.out.find("\"alignment\":\"pio\"") != std::string::npos);
}

TEST_CASE("record refuses clearly without what it needs", "[cli][record]") {
    auto r = run(cli() + " record -o /tmp/x.dat", true);
    CHECK(r.status == 64);
    r = run(cli() + " record -o '" + scratch("nope.dat").string() + "' --duration 1 --pid 2147483000", true);
    CHECK(r.status == 2);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    if (geteuid() == 0 && run("command -v setpriv").status == 0) {
        r = run("setpriv --reuid=65534 --regid=65534 --clear-groups " + cli() + " record -o /tmp/irqflow-nobody.dat --duration 1", true);
        CHECK(r.status == 2);
        CHECK(r.out.find("needs root") != std::string::npos);
    }
}


TEST_CASE("record writes a trace.dat that trace-cmd report and our reader open", "[cli][record]") {
    if (!recording_possible()) {
        WARN("not root or no kvm tracepoints: live recording test skipped");
        return;
    }
    auto out = scratch("live.dat");
    auto err = scratch("live.err");
    const auto r = record("-o " + out.string() + " --duration 1 -- sleep 0.2", err);
    REQUIRE(r.status == 0);
    CHECK(run("trace-cmd report '" + out.string() + "' > /dev/null").status == 0);
    Trace t = load_trace(out.string());
    CHECK(t.meta.format == "trace.dat v6");
    CHECK(!t.meta.kernel_release.empty());
    const std::string text = read_file(err);
    CHECK(text.find("wrote " + out.string() + ": ") != std::string::npos);
    CHECK(text.find("  CPU 0: ") != std::string::npos);  // events recorded and lost per CPU
    CHECK(text.find("data recorded at offset") == std::string::npos);  // libtracecmd's chatter is off
    CHECK(run("trace-cmd report --stat '" + out.string() + "'").out.find("CPU: 0\nentries:") != std::string::npos);
    check_nothing_left(r, out);
}

TEST_CASE("record stops on SIGINT and SIGTERM like trace-cmd: file written, instance removed, command stopped", "[cli][record]") {
    if (!recording_possible()) {
        WARN("not root or no kvm tracepoints: live recording test skipped");
        return;
    }
    for (const std::string sig : {"INT", "TERM"}) {
        INFO("SIG" << sig);
        auto out = scratch("stopped-" + sig + ".dat");
        auto err = scratch("stopped-" + sig + ".err");
        // A 60 s recording of a 60 s command, signalled once its instance exists.
        const auto r = record("-o " + out.string() + " --duration 60 -- sleep 60", err, sig);
        CHECK(r.status == 0);
        const std::string text = read_file(err);
        CHECK(text.find("stopped by SIG" + sig) != std::string::npos);
        CHECK(text.find("wrote " + out.string() + ": ") != std::string::npos);
        CHECK(text.find("sleep still ran when the recording ended: sent it SIGTERM") != std::string::npos);
        CHECK(run("trace-cmd report '" + out.string() + "' > /dev/null").status == 0);
        CHECK(load_trace(out.string()).meta.format == "trace.dat v6");
        check_nothing_left(r, out);
    }
}

TEST_CASE("record fails cleanly: a command that cannot run exits 127, an output that cannot be created exits 2", "[cli][record]") {
    if (!recording_possible()) {
        WARN("not root or no kvm tracepoints: live recording test skipped");
        return;
    }
    auto out = scratch("never.dat");
    auto err = scratch("never.err");
    auto r = record("-o " + out.string() + " -- /nonexistent/command", err);
    CHECK(r.status == 127);
    CHECK(read_file(err) == "irqflow record: cannot run /nonexistent/command: No such file or directory\n");
    CHECK_FALSE(std::filesystem::exists(out));
    check_nothing_left(r, out);
    const std::string bad = scratch("no-such-dir").string() + "/x.dat";
    r = record("-o " + bad + " --duration 1", err);
    CHECK(r.status == 2);
    CHECK(read_file(err) == "irqflow record: cannot create " + bad + ": No such file or directory\n");
    check_nothing_left(r, bad);
}

TEST_CASE("check folds follow-ons under their root, names the root in JSON and keeps exit 1", "[cli][recovery]") {
    const std::string cascade = std::string(IRQFLOW_CASES) + "/ISR-ORDER-fires-cascade-collapsed.txt";
    auto text = run(cli() + " check '" + cascade + "'");
    CHECK(text.status == 1);  // findings: exit 1, follow-ons or not
    CHECK(text.out.find("ISR-ORDER vm0/vcpu0") != std::string::npos);
    CHECK(text.out.find("model re-synchronized: retired {0xfd} from ISR") != std::string::npos);
    CHECK(text.out.find("  + 1 follow-on EOI-NOT-HIGHEST-ISR, 1 follow-on PVEOI-NOT-ARMED until 1.000160000 s") != std::string::npos);
    CHECK(text.out.find("EOI-NOT-HIGHEST-ISR vm0") == std::string::npos);  // folded, not listed
    CHECK(text.out.find("3 findings (3 divergences, 0 liveness; 1 root, 2 follow-on)") != std::string::npos);
    auto json = run(cli() + " check --json '" + cascade + "'");
    const auto j = nlohmann::json::parse(json.out);
    REQUIRE(j["findings"].size() == 3);
    CHECK_FALSE(j["findings"][0].contains("caused_by"));
    CHECK(j["findings"][0]["resync"] == "retired {0xfd} from ISR");
    CHECK(j["findings"][1]["caused_by"] == 0);
    CHECK(j["findings"][2]["caused_by"] == 0);
    CHECK(j["summary"]["follow_ons"] == 2);
}

TEST_CASE("check on a pasted excerpt names rule, vCPU, vector, cycles and the input lines, and exits 1", "[cli][liveness]") {
    const std::string cases = IRQFLOW_CASES;
    auto r = run(cli() + " check '" + cases + "/LIVE-ACCEPTED-NOT-DELIVERED-fires-accepts-only.txt'", true);
    CHECK(r.status == 1);
    CHECK(r.out.find("LIVE-ACCEPTED-NOT-DELIVERED vm0/vcpu0") != std::string::npos);
    CHECK(r.out.find("0xd1 accepted 2 times in 15.625 ms (records 3 to 8), never delivered: 1 of them found it still pending and was lost; "
                     "the vCPU shows no activity in the excerpt") != std::string::npos);
    CHECK(r.out.find("record 8 (line 15)") != std::string::npos);
    CHECK(r.out.find("[record 3 (line 10): first accept of 0xd1]") != std::string::npos);
    CHECK(r.out.find("no vCPU could be identified") == std::string::npos);
    CHECK(r.out.find("warning: no kvm_entry/kvm_exit: 1 vCPU(s) inferred from the APIC ids") != std::string::npos);
    auto j = run(cli() + " check --json '" + cases + "/LIVE-REINJECT-LOOP-fires-vmx-db-exception.txt'", true);
    CHECK(j.status == 1);
    CHECK(j.out.find("\"rule\":\"LIVE-REINJECT-LOOP\"") != std::string::npos);
    CHECK(j.out.find("\"record\":12,\"line\":19") != std::string::npos);
    CHECK(j.out.find("#DB's delivery failed 3 times") != std::string::npos);
    // a trace.dat has no input lines to name
    auto d = run(cli() + " check --json '" + sample("pit.dat") + "'");
    CHECK(d.out.find("\"line\"") == std::string::npos);
}

TEST_CASE("a clean check of an excerpt says which rules had nothing to judge, and why", "[cli][excerpt]") {
    auto p = scratch("clean-excerpt.txt");
    write_file(p,
               "Here the timer interrupt arrives and is handled (no entries or exits were traced):\n"
               " qemu-kvm-5001  [003] ....  4821.118064: kvm_apic_accept_irq: apicid 0 vec 236 (Fixed|edge)\n"
               " qemu-kvm-5000  [002] ....  4821.118070: kvm_inj_virq: IRQ 0xec\n"
               " qemu-kvm-5000  [002] ....  4821.118090: kvm_eoi: apicid 0 vector 236\n");
    auto r = run(cli() + " check '" + p.string() + "'");
    CHECK(r.status == 0);
    CHECK(r.out.find("not judged (the input gives these rules nothing to check):") != std::string::npos);
    CHECK(r.out.find("  INJ-NOT-PENDING, INJ-NOT-HIGHEST, INJ-BLOCKED-BY-PPR, ISR-ORDER: no kvm_entry or kvm_exit in the input: no vCPU's "
                     "APIC state is known, so no injection was judged") != std::string::npos);
    CHECK(r.out.find("NESTED-EVENT-LOST: no kvm_nested_vmenter in the input") != std::string::npos);
    CHECK(r.out.find("LIVE-ACCEPTED-NOT-DELIVERED") == std::string::npos);  // it judged the accept
    auto j = nlohmann::json::parse(run(cli() + " check --json '" + p.string() + "'").out);
    bool found = false;
    for (const auto& n : j["not_judged"])
        if (n["rule"] == "INJ-NOT-PENDING") found = n["why"].get<std::string>().find("no kvm_entry or kvm_exit") == 0;
    CHECK(found);
    CHECK(j["input"]["format"] == "trace-cmd report text");
    CHECK(j["input"]["warnings"].size() >= 1);  // the annotation line, named
    // a full capture judges nearly everything: only what it has no case of is listed
    auto full = nlohmann::json::parse(run(cli() + " check --json '" + sample("pveoi-on.dat") + "'").out);
    std::set<std::string> rules;
    for (const auto& n : full["not_judged"]) rules.insert(n["rule"].get<std::string>());
    CHECK(rules.count("INJ-NOT-PENDING") == 0);
    CHECK(rules.count("NESTED-EVENT-LOST") == 1);
}

TEST_CASE("events numbers each record once and prints '-' for what the input lacks", "[cli][events]") {
    // a lost-event marker is no record: it does not take the number of the record after it
    const auto lost = run(cli() + " events '" + sample("lost.dat") + "'").out;
    std::istringstream in(lost);
    std::set<std::string> numbers;
    std::size_t markers = 0, repeated = 0;
    for (std::string line; std::getline(in, line);) {
        std::istringstream w(line);
        std::string record;
        w >> record;
        if (line.find(" lost_events count=") != std::string::npos) {
            ++markers;
            CHECK(record == "-");
            CHECK(line.find("       - -/- lost_events") != std::string::npos);  // no thread either
        } else {
            repeated += !numbers.insert(record).second;
        }
    }
    CHECK(markers > 0);
    CHECK(repeated == 0);
    const auto json = run(cli() + " events --json '" + sample("lost.dat") + "' | grep -m1 lost_events").out;
    CHECK(nlohmann::json::parse(json)["record"].is_null());
    // an excerpt as posted without the CPU and task columns (timestamp, event, fields)
    const auto excerpt = scratch("no-columns.txt");
    write_file(excerpt,
               "Here is what the host shows right before the guest hangs:\n"
               "1907374.582981: kvm_entry: vcpu 1, rip 0xffffffffc0771aa2\n"
               "1907374.582990: kvm_exit: vcpu 1 reason EPT_VIOLATION rip 0xffffffffc0771aa2 info 683 800000ec\n");
    const auto text = run(cli() + " events '" + excerpt.string() + "'").out;
    CHECK(text.find("       0 1907374.582981000 [---]       - vm0/vcpu1 kvm_entry") != std::string::npos);
    CHECK(text.find("[-01]") == std::string::npos);
    const auto j = nlohmann::json::parse(run(cli() + " events --json '" + excerpt.string() + "' | head -1").out);
    CHECK(j["cpu"].is_null());
    CHECK(j["tid"].is_null());
}

TEST_CASE("events filters by vector, time span (trace time or +from the start) and text", "[cli][events]") {
    const std::string dat = "'" + sample("pveoi-on.dat") + "'";
    // every event about 0xec, and only those: accepts, injections, EOIs (real and PV)
    const auto v = run(cli() + " events " + dat + " --vector 0xec --json").out;
    std::istringstream in(v);
    std::set<std::string> names;
    std::size_t n = 0;
    for (std::string line; std::getline(in, line); ++n) {
        const auto j = nlohmann::json::parse(line);
        names.insert(j["name"].get<std::string>());
        const auto& f = j["fields"];
        const int vec = f.contains("vec") ? f["vec"].get<int>() : f.contains("vector") ? f["vector"].get<int>() : -1;
        CHECK(vec == 0xec);
    }
    CHECK(n > 1000);
    CHECK(names == std::set<std::string>{"kvm_apic_accept_irq", "kvm_inj_virq", "kvm_eoi", "kvm_pv_eoi"});
    CHECK(run(cli() + " events " + dat + " --vector 236 | wc -l").out == run(cli() + " events " + dat + " --vector 0xec | wc -l").out);
    // a span in trace time and the same span from the start (the trace starts at 12.088411844 s)
    const auto abs = run(cli() + " events " + dat + " --range 20.088411844:20.108411844").out;
    const auto rel = run(cli() + " events " + dat + " --range +8s:+8.02s").out;
    CHECK(!abs.empty());
    CHECK(abs == rel);
    CHECK(abs.find(" 20.08") != std::string::npos);
    CHECK(abs.find(" 20.11") == std::string::npos);
    // text of the printed line: the x2APIC ICR writes
    const auto icr = run(cli() + " events " + dat + " --grep ecx=0x830").out;
    CHECK(!icr.empty());
    std::istringstream lines(icr);
    for (std::string line; std::getline(lines, line);) CHECK(line.find("kvm_msr write=1(write) ecx=0x830") != std::string::npos);
    // bad values are usage errors naming what is accepted
    auto r = run(cli() + " events " + dat + " --vector 0x100", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("a vector is 0..255") != std::string::npos);
    r = run(cli() + " events " + dat + " --range 5:3", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("+TIME from the trace's start") != std::string::npos);
}

// KVM's events outside the modelled kinds that name their vCPU (kvm_hv_stimer_cleanup's
// vcpu_id): at teardown the real hyperv capture's main thread (178, no vCPU's) destroys
// every vCPU's synthetic timers. Each such event is the vCPU it names, whichever thread
// emitted it, in the trace.dat and in its report pasted cut, annotated and wrapped.
TEST_CASE("events of KVM that name their vCPU are that vCPU's, not their thread's", "[cli][events][attribution]") {
    auto own_vcpus_hold = [](const std::string& json_lines, std::size_t& n) {
        std::istringstream in(json_lines);
        for (std::string line; std::getline(in, line);) {
            const auto j = nlohmann::json::parse(line);
            if (j["name"] != "kvm_hv_stimer_cleanup") continue;
            const std::string info = j["info"].get<std::string>();
            INFO(line);
            REQUIRE(info.rfind("vcpu_id ", 0) == 0);
            CHECK(j["vcpu"] == std::stoi(info.substr(8)));
            ++n;
        }
    };
    std::size_t n = 0;
    own_vcpus_hold(run(cli() + " events --json '" + sample("hyperv.dat") + "'").out, n);
    CHECK(n > 16);
    CHECK(run(cli() + " events --vcpu 2 '" + sample("hyperv.dat") + "' | grep -c ' 178 vm0/vcpu2 kvm_hv_stimer_cleanup vcpu_id 2'").out == "4\n");

    // the report's last 300 lines, cut inside the first; the shape too: vCPU 1's
    // timers torn down on vCPU 3's thread (184)
    const std::string report = run("trace-cmd report '" + sample("hyperv.dat") + "' | tail -300").out;
    std::string excerpt = "On shutdown the host shows:\n" + report.substr(report.find(": ") + 2);
    for (std::size_t at = 0; (at = excerpt.find("qemu-system-x86-178   [001]", at)) != std::string::npos;) {
        const std::size_t eol = excerpt.find('\n', at);
        if (excerpt.substr(at, eol - at).find("vcpu_id 1 ") != std::string::npos) excerpt.replace(at + 16, 3, "184");
        at = eol;
    }
    excerpt += "(then qemu exits)\n";
    REQUIRE(excerpt.find("x86-184   [001]    22.218061: kvm_hv_stimer_cleanup: vcpu_id 1 timer 0") != std::string::npos);
    auto owners = [](const std::string& json_lines) {  // (record, vCPU) of every kvm_hv_stimer_cleanup
        std::vector<std::pair<int, int>> o;
        std::istringstream in(json_lines);
        for (std::string line; std::getline(in, line);)
            if (const auto j = nlohmann::json::parse(line); j["name"] == "kvm_hv_stimer_cleanup") o.emplace_back(j["record"], j["vcpu"]);
        return o;
    };
    const auto path = scratch("teardown.txt");
    write_file(path, excerpt);
    const std::string plain_json = run(cli() + " events --json '" + path.string() + "'").out;
    std::size_t m = 0;
    own_vcpus_hold(plain_json, m);
    CHECK(m == 16);
    const auto plain = owners(plain_json);
    for (const WrapStyle style : kWrapStyles)
        for (const std::size_t width : {72, 76, 80}) {
            INFO(to_string(style) << " at " << width << " columns");
            write_file(path, mail_wrap(excerpt, style, width, static_cast<unsigned>(width)));
            CHECK(owners(run(cli() + " events --json '" + path.string() + "'").out) == plain);  // a "vcpu_i" / "d 1" break too
            // the excerpt's only running vCPU is 0; vCPU 1 is there by its timers' vcpu_id
            const auto vcpu1 = run(cli() + " events --vcpu 1 '" + path.string() + "' | grep -c ' 184 vm0/vcpu1 kvm_hv_stimer_cleanup'").out;
            CHECK(vcpu1 == "4\n");
        }
}
