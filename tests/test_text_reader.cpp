// Text traces: the same normalized stream from `trace-cmd report` output in its
// historic layouts and from `perf script`, compared with the trace.dat reader.
#include <catch2/catch.hpp>

#include <functional>
#include <sstream>

#include "helpers.hpp"
#include "mail_wrap.hpp"
#include "text_helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// Applies f to every event line of a report ("comm-pid [cpu] ts: name: info").
std::string rewrite(const std::string& report, const std::function<std::string(const std::string&)>& f) {
    std::istringstream in(report);
    std::string line, out;
    while (std::getline(in, line)) {
        bool event = line.find(" [") != std::string::npos && line.find(": ") != std::string::npos;
        out += event ? f(line) : line;
        out += '\n';
    }
    return out;
}

struct Parts {
    std::string task, cpu, ts, rest;
};
Parts split(const std::string& line) {
    Parts p;
    auto open = line.find(" [");
    auto close = line.find(']', open);
    auto colon = line.find(": ", close);
    p.task = line.substr(0, open);
    p.cpu = line.substr(open + 1, close - open);
    p.ts = line.substr(close + 1, colon - close - 1);
    p.rest = line.substr(colon + 2);
    return p;
}

std::string trim_copy(std::string s) {
    s.erase(0, s.find_first_not_of(' '));
    s.erase(s.find_last_not_of(' ') + 1);
    return s;
}

}  // namespace

TEST_CASE("report text (ns timestamps) gives the identical stream on every sample", "[text][samples]") {
    for (const auto& name : dat_samples()) {
        INFO(name);
        Trace dat = load_trace(sample(name));
        Trace text = load_text(run("trace-cmd report -t '" + sample(name) + "'").out, name + ".txt");
        CHECK(text.meta.format.rfind("trace-cmd report text", 0) == 0);
        CHECK(text.meta.warnings.empty());
        require_same_stream(dat, text, Compare::Full);
    }
}

TEST_CASE("historic report layouts and perf script give the same stream", "[text][samples]") {
    const std::string name = "pveoi-on-midflight-v6.dat";
    Trace dat = load_trace(sample(name));
    const std::string ns = run("trace-cmd report -t '" + sample(name) + "'").out;

    SECTION("default microsecond timestamps") {
        require_same_stream(dat, load_text(run("trace-cmd report '" + sample(name) + "'").out, "us.txt"), Compare::MicroSeconds);
    }
    SECTION("4-character latency flags column") {
        auto t = rewrite(ns, [](const std::string& l) { auto p = split(l); return p.task + " " + p.cpu + " d..1" + p.ts + ": " + p.rest; });
        require_same_stream(dat, load_text(t, "flags4.txt"), Compare::Full);
    }
    SECTION("5-character latency flags column") {
        auto t = rewrite(ns, [](const std::string& l) { auto p = split(l); return p.task + " " + p.cpu + " dNh2." + p.ts + ": " + p.rest; });
        require_same_stream(dat, load_text(t, "flags5.txt"), Compare::Full);
    }
    SECTION("no task, CPU or timestamp columns") {
        auto t = rewrite(ns, [](const std::string& l) { return "  " + split(l).rest; });
        require_same_stream(dat, load_text(t, "bare.txt"), Compare::NoColumns);
    }
    SECTION("mail client wrapping: header alone, long lines broken at 60 columns") {
        auto t = rewrite(ns, [](const std::string& l) {
            auto p = split(l);
            std::string body = " " + trim_copy(p.rest);
            std::string out = p.task + " " + p.cpu + p.ts + ":\n";
            while (body.size() > 60) {
                auto cut = body.rfind(' ', 60);
                if (cut == std::string::npos || cut < 10) break;
                out += body.substr(0, cut) + "\n";
                body = body.substr(cut + 1);
            }
            return out + body;
        });
        require_same_stream(dat, load_text(t, "wrapped.txt"), Compare::Full);
    }
    SECTION("quoted in a reply, with annotations and blank lines") {
        int n = 0;
        auto t = rewrite(ns, [&n](const std::string& l) {
            std::string out = "> " + l;
            if (++n % 500 == 0) out += "\n>\n> # the guest is idle here\n> Look at the next exit";
            return out;
        });
        Trace q = load_text(t, "quoted.txt");
        require_same_stream(dat, q, Compare::Full);
        REQUIRE(q.meta.warnings.size() == 1);  // the skipped annotation lines are reported
    }
    SECTION("perf script output of kvm:* tracepoints") {
        auto t = rewrite(ns, [](const std::string& l) {
            auto p = split(l);
            auto task = trim_copy(p.task);
            auto dash = task.rfind('-');
            return " " + task.substr(0, dash) + " " + task.substr(dash + 1) + " " + p.cpu + p.ts + ": kvm:" + trim_copy(p.rest);
        });
        Trace perf = load_text(t, "perf.txt");
        CHECK(perf.meta.format == "perf script text");
        require_same_stream(dat, perf, Compare::Full);
    }
}

TEST_CASE("the layouts people paste in bug reports give the same stream", "[text][samples]") {
    const std::string name = "pveoi-on-midflight-v6.dat";
    Trace dat = load_trace(sample(name));
    const std::string ns = run("trace-cmd report -t '" + sample(name) + "'").out;

    SECTION("trace-cmd report -l: the CPU glued to the latency flags, no brackets") {
        Trace l = load_text(run("trace-cmd report -l -t '" + sample(name) + "'").out, "latency.txt");
        CHECK(l.meta.warnings.empty());
        require_same_stream(dat, l, Compare::Full);
    }
    SECTION("a timestamp and nothing else in front") {
        auto t = rewrite(ns, [](const std::string& l) { auto p = split(l); return "  " + trim_copy(p.ts) + ": " + p.rest; });
        Trace x = load_text(t, "tsonly.txt");
        CHECK(x.meta.warnings.empty());
        require_same_stream(dat, x, Compare::NoColumns);
        for (std::size_t i = 0; i < dat.events.size(); ++i) REQUIRE(dat.events[i].ts == x.events[i].ts);
    }
    SECTION("perf script with a pid/tid column, task names with spaces, bodies wrapped onto the next line") {
        int n = 0;
        auto t = rewrite(ns, [&n](const std::string& l) {
            auto p = split(l);
            auto task = trim_copy(p.task);
            auto dash = task.rfind('-');
            const std::string head = " CPU " + std::to_string(n % 3) + "/KVM 77/" + task.substr(dash + 1) + " " + p.cpu + p.ts + ":";
            return head + (++n % 2 ? " kvm:" + trim_copy(p.rest) : "\n      kvm:" + trim_copy(p.rest));
        });
        Trace perf = load_text(t, "perf-pidtid.txt");
        CHECK(perf.meta.format == "perf script text");
        require_same_stream(dat, perf, Compare::Full);
        CHECK(perf.comms.begin()->second.rfind("CPU ", 0) == 0);
    }
    SECTION("no-break spaces for spaces") {
        auto t = rewrite(ns, [](const std::string& l) {
            std::string out;
            for (char c : l) out += c == ' ' ? std::string("\xc2\xa0") : std::string(1, c);
            return out;
        });
        require_same_stream(dat, load_text(t, "nbsp.txt"), Compare::Full);
    }
}

TEST_CASE("every layout, wrapped in every way a mail client wraps, gives the events of the layout unwrapped", "[text][wrapped][samples]") {
    const std::string name = "pveoi-on-midflight-v6.dat";
    std::string ns = run("trace-cmd report -t '" + sample(name) + "' | head -6000").out;
    std::string latency = run("trace-cmd report -l -t '" + sample(name) + "' | head -6000").out;
    const std::pair<const char*, std::string> layouts[] = {
        {"task [cpu] ts", ns},
        {"report -l", latency},
        {"timestamp only", rewrite(ns, [](const std::string& l) { auto p = split(l); return "  " + trim_copy(p.ts) + ": " + p.rest; })},
        {"no columns", rewrite(ns, [](const std::string& l) { return "  " + split(l).rest; })},
        {"perf script tid", rewrite(ns, [](const std::string& l) {
             auto p = split(l);
             auto task = trim_copy(p.task);
             auto dash = task.rfind('-');
             return " " + task.substr(0, dash) + " " + task.substr(dash + 1) + " " + p.cpu + p.ts + ": kvm:" + trim_copy(p.rest);
         })},
        {"perf script pid/tid, CPU n/KVM", rewrite(ns, [](const std::string& l) {
             auto p = split(l);
             auto task = trim_copy(p.task);
             auto dash = task.rfind('-');
             return " CPU 0/KVM 77/" + task.substr(dash + 1) + " " + p.cpu + p.ts + ": kvm:" + trim_copy(p.rest);
         })},
    };
    for (const auto& [layout, text] : layouts) {
        const Trace plain = load_text(text, "layout.txt");
        REQUIRE(plain.events.size() > 5000);
        for (const WrapStyle style : kWrapStyles)
            for (const std::size_t width : {72, 80}) {
                INFO(layout << ", " << to_string(style) << " at " << width << " columns");
                const Trace t = load_text(mail_wrap(text, style, width, static_cast<unsigned>(width)), "layout-wrapped.txt");
                require_identical_events(plain, t, style != WrapStyle::MidToken && style != WrapStyle::Mixed);
                for (const auto& w : t.meta.warnings) CHECK(w.find("annotations") == std::string::npos);
            }
    }
}

TEST_CASE("text input remembers each record's line, for findings to point at", "[text]") {
    const std::string text =
        "Here is what I see before the hang:\n"
        "\n"
        " qemu-kvm-4242  [001]   100.000001: kvm_entry: vcpu 1, rip 0x10\n"
        " qemu-kvm-4242  [001]   100.000002:\n"
        "     kvm_exit: reason EXIT_HLT rip 0x11 info 0 0\n"
        "CPU:1 [3 EVENTS DROPPED]\n"
        " qemu-kvm-4242  [001]   100.000003: kvm_entry: vcpu 1, rip 0x11\n";
    Trace t = load_text(text, "lines.txt");
    CHECK(t.source_lines == std::vector<std::uint32_t>{3, 4, 7});
    CHECK(load_trace(sample("pit.dat")).source_lines.empty());
}

TEST_CASE("other subsystems' events and CAN'T FIND FIELD records are read, not refused", "[text]") {
    const std::string text =
        "          <idle>-0     [001] d.h1.  50.000001: rcu:rcu_utilization: Start context switch\n"
        "     CPU 1/KVM-4243  [001] d..1.  50.000002: msr:write_msr: 6e0, value 1a4e6e7e9d1\n"
        "     CPU 1/KVM-4243  [001] ....   50.000003: kvm_exit: vcpu 1 reason EPT_VIOLATION rip 0xCAN'T FIND FIELD \"guest_rip\" info1 0x0000000000000184 info2 0x0000000000000000 intr_info 0x800000ec error_code 0x00000000\n"
        "     CPU 1/KVM-4243  [001] ....   50.000004: kvm_inj_virq: IRQ 0xec [reinjected]\n"
        "     CPU 1/KVM-4243  [001] ....   50.000005: kvm_entry: vcpu 1, rip CAN'T FIND FIELD \"rip\"\n"
        "     CPU 1/KVM-4243  [001] ....   50.000006: kvm_exit: vcpu 1 reason EXTERNAL_INTERRUPT rip 0xffffffff81a3c1e2 info1 "
        "0x0000000000000000 info2 0x0000000000000000 intr_info 0x800000ec error_code 0x00000000\n";
    Trace t = load_text(text, "mixed.txt");
    REQUIRE(t.events.size() == 6);
    CHECK(t.events[0].kind == EventKind::Other);
    CHECK(t.name(t.events[0].name_id) == "rcu_utilization");
    CHECK(t.events[1].kind == EventKind::Other);
    CHECK(t.comms.at(4243) == "CPU 1/KVM");
    const Event& x = t.events[2];
    REQUIRE(x.kind == EventKind::Exit);
    CHECK_FALSE(x.has(slot::exit_rip));
    CHECK(x.get(slot::exit_reason) == 48);
    CHECK(x.get(slot::exit_intr_info) == 0x800000ec);
    CHECK(t.events[3].get(slot::inj_reinjected) == 1);
    CHECK(t.events[4].kind == EventKind::Entry);
    CHECK(t.events[4].get(slot::entry_vcpu_id) == 1);
    CHECK_FALSE(t.events[4].has(slot::entry_rip));
    const Event& y = t.events[5];  // the newer kvm_exit form, every field
    CHECK(y.get(slot::exit_vcpu_id) == 1);
    CHECK(y.get(slot::exit_reason) == 1);
    CHECK(y.get(slot::exit_isa) == 1);
    CHECK(y.get(slot::exit_rip) == static_cast<std::int64_t>(0xffffffff81a3c1e2ULL));
    CHECK(y.get(slot::exit_intr_info) == 0x800000ec);
    CHECK(y.get(slot::exit_error_code) == 0);
    CHECK(t.meta.warnings.empty());
}

TEST_CASE("older kernels' print formats parse into the same slots", "[text]") {
    // Shapes printed by pre-5.x kernels and by the trace-cmd kvm plugin.
    const std::string text =
        " qemu-kvm-4242  [001] ....  100.000001: kvm_entry: vcpu 1\n"
        " qemu-kvm-4242  [001] ....  100.000002: kvm_exit: reason EXTERNAL_INTERRUPT rip 0x22da info 0 800000fd\n"
        " qemu-kvm-4242  [001] ....  100.000003: kvm_inj_virq: irq 52\n"
        " qemu-kvm-4242  [001] ....  100.000004: kvm_apic_accept_irq: apicid 1 vec 236 (Fixed|edge) (coalesced)\n"
        " qemu-kvm-4242  [001] ....  100.000005: kvm_exit: vcpu 1 reason npf rip 0xfd11d info 100000014 fd000\n"
        " qemu-kvm-4242  [001] ....  100.000006: kvm_page_fault: address fd000 error_code 14\n"
        " qemu-kvm-4242  [001] ....  100.000007: kvm_userspace_exit: reason KVM_EXIT_INTERNAL_ERROR (17)\n"
        " qemu-kvm-4242  [001] ....  100.000008: kvm_exit: reason EXIT_EXCP_GP rip 0x7ffbb280 info 0 0\n"
        " qemu-kvm-4242  [001] ....  100.000009: kvm_ioapic_set_irq: pin 4 dst 0 vec 0 (Fixed|physical|edge|masked)\n";
    Trace t = load_text(text, "old.txt");
    REQUIRE(t.events.size() == 9);
    for (const auto& e : t.events) REQUIRE(e.kind != EventKind::Other);
    CHECK(t.events[0].get(slot::entry_vcpu_id) == 1);
    CHECK(t.events[1].get(slot::exit_reason) == 1);
    CHECK(t.events[1].get(slot::exit_isa) == 1);
    CHECK(t.events[1].get(slot::exit_info2) == 0x800000fd);
    CHECK(t.events[2].get(slot::inj_vector) == 52);
    CHECK_FALSE(t.events[2].has(slot::inj_soft));
    CHECK(t.events[3].get(slot::accept_coalesced) == 1);
    CHECK(t.events[3].get(slot::accept_vec) == 236);
    CHECK(t.events[4].get(slot::exit_reason) == 0x400);
    CHECK(t.events[4].get(slot::exit_isa) == 2);
    CHECK(t.events[6].get(0) == 17);
    CHECK(t.events[7].get(slot::exit_reason) == 0x40 + 13);
    CHECK(t.events[8].get(field_slot(EventKind::IoapicSetIrq, "masked")) == 1);
    for (const auto& e : t.events) CHECK(e.vcpu.value() == 1);
}

TEST_CASE("garbage in a text trace is an error naming file and line", "[text][badinput]") {
    const std::string good = " qemu-kvm-1  [000]   1.000001: kvm_entry: vcpu 0, rip 0x10\n";
    SECTION("binary bytes") {
        std::string bad = good + good + std::string("\x01\x02\xff\xfe garbage\n") + good;
        try {
            load_text(bad, "bin.txt");
            FAIL("no error");
        } catch (const InputError& e) {
            CHECK(e.position().unit == InputPosition::Unit::Line);
            CHECK(e.position().at == 3);
            CHECK(std::string(e.what()).find("bin.txt") != std::string::npos);
        }
    }
    SECTION("a corrupt event header") {
        std::string bad = good + " qemu-kvm-1  [000]   1.0x0002: kvm_entry: vcpu 0, rip 0x10\n";
        try {
            load_text(bad, "hdr.txt");
            FAIL("no error");
        } catch (const InputError& e) {
            CHECK(e.position().at == 2);
        }
    }
    SECTION("prose with no events at all") {
        std::string prose;
        for (int i = 0; i < 100; ++i) prose += "This is a paragraph about something else entirely.\n";
        CHECK_THROWS_AS(load_text(prose, "prose.txt"), InputError);
    }
}

TEST_CASE("exception and nested-guest events parse in old and new kernels' formats", "[text]") {
    const std::string text =
        " qemu-kvm-4242  [001] ....  100.000001: kvm_inj_exception: #GP (0x0)\n"
        " qemu-kvm-4242  [001] ....  100.000002: kvm_inj_exception: #DB [reinjected]\n"
        " qemu-kvm-4242  [001] ....  100.000003: kvm_inj_exception: #PF (0x2) [reinjected]\n"
        " qemu-kvm-4242  [001] ....  100.000004: kvm_nested_vmrun: rip: 0x000000007ffbb280 vmcb: 0x0000000008224000 nrip: "
        "0xffffffffffbbe119 int_ctl: 0x01020000 event_inj: 0x800000ec npt: on\n"
        " qemu-kvm-4242  [001] ....  100.000005: kvm_nested_vmenter: rip: 0xffffffff81000000 vmcs: 0x0000000108224000 nested_rip: "
        "0x0000000000401000 int_ctl: 0x00000000 event_inj: 0x80000b0e nested_ept=y nested_eptp: 0x000000010000501e\n"
        " qemu-kvm-4242  [001] ....  100.000006: kvm_nested_vmexit: vcpu 1 reason npf rip 0x401000 info1 0x0000000200000006 info2 "
        "0x00000000001ab000 intr_info 0x800000ec error_code 0x00000000 requests 0x0000000000000000\n"
        " qemu-kvm-4242  [001] ....  100.000007: kvm_nested_vmexit_inject: reason: npf ext_inf1: 0x0000000200000006 ext_inf2: "
        "0x00000000001ab000 ext_int: 0x800000ec ext_int_err: 0x00000000\n"
        " qemu-kvm-4242  [001] ....  100.000008: kvm_nested_vmexit_inject: reason EXIT_NPF info1 200000006 info2 1ab000 int_info 0 int_info_err 0\n"
        " qemu-kvm-4242  [001] ....  100.000009: kvm_nested_intr_vmexit: rip: 0x0000000000401000\n";
    Trace t = load_text(text, "nested.txt");
    REQUIRE(t.events.size() == 9);
    for (const auto& e : t.events) REQUIRE(e.kind != EventKind::Other);
    CHECK(t.events[0].get(slot::excp_vector) == 13);
    CHECK(t.events[0].get(slot::excp_error_code) == 0);
    CHECK_FALSE(t.events[0].has(slot::excp_reinjected));
    CHECK(t.events[1].get(slot::excp_vector) == 1);
    CHECK(t.events[1].get(slot::excp_reinjected) == 1);
    CHECK(t.events[2].get(slot::excp_error_code) == 2);
    CHECK(t.events[3].kind == EventKind::NestedVmenter);
    CHECK(t.events[3].get(slot::nvmenter_event_inj) == 0x800000ec);
    CHECK(t.events[3].get(slot::nvmenter_nested_rip) == static_cast<std::int64_t>(0xffffffffffbbe119ULL));
    CHECK(t.events[4].get(slot::nvmenter_event_inj) == 0x80000b0e);
    CHECK(t.events[4].get(slot::nvmenter_vmcb) == 0x108224000);
    CHECK(t.events[5].get(slot::exit_reason) == 0x400);
    CHECK(t.events[5].get(slot::exit_isa) == 2);
    CHECK(t.events[5].get(slot::exit_intr_info) == 0x800000ec);
    CHECK(t.events[6].get(slot::nvmexit_inject_code) == 0x400);
    CHECK(t.events[6].get(slot::nvmexit_inject_isa) == 2);
    CHECK(t.events[6].get(slot::nvmexit_inject_int_info) == 0x800000ec);
    CHECK(t.events[7].get(slot::nvmexit_inject_info2) == 0x1ab000);
    CHECK(t.events[7].get(slot::nvmexit_inject_int_info) == 0);
    CHECK(t.events[8].get(slot::nintr_rip) == 0x401000);
}
