// The guest's own trace beside the host's (capture/README.md, "Guest traces"): its
// interrupt events read from a trace.dat and from pasted report text alike, and its
// clock put onto the host's exactly, on the real pair samples/hostguest*.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "mail_wrap.hpp"
#include "text_helpers.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

Trace host_with_info(const std::string& name) {
    LoadOptions lo;
    lo.other_event_info = true;
    return load_trace(sample(name), lo);
}

// The host's injections of each vector on each vCPU, by time.
std::map<std::pair<int, int>, std::vector<std::int64_t>> injections(const Trace& host) {
    std::map<std::pair<int, int>, std::vector<std::int64_t>> out;
    for (const Event& e : host.events)
        if (e.kind == EventKind::InjVirq && e.has(slot::inj_vector) && e.vcpu.value() >= 0)
            out[{e.vcpu.value(), static_cast<int>(e.f[slot::inj_vector])}].push_back(e.ts.value());
    return out;
}

}  // namespace

TEST_CASE("the guest's trace of the hostguest run goes onto the host's clock exactly, every handler after its injection",
          "[capture][guest][samples]") {
    const Trace host = host_with_info("hostguest.dat");
    REQUIRE(host.meta.tsc2nsec);
    CHECK(host.meta.tsc2nsec->mult == 796882227u);
    CHECK(host.meta.tsc2nsec->shift == 31u);
    GuestTrace guest = load_guest_trace(sample("hostguest-guest.dat"));
    CHECK(guest.meta.clock == "x86-tsc");
    CHECK(guest.irq_names.at(10) == "virtio0");
    CHECK(guest.irq_names.at(4) == "ttyS0");
    const GuestClock clock = align_guest_clock(host, guest);
    INFO(clock.detail);
    REQUIRE(clock.method == GuestClock::Method::Tsc);
    CHECK(clock.unaligned == 0);
    CHECK(clock.aligned == guest.events.size());
    CHECK(clock.detail.find("offset -90676228491 cycles") != std::string::npos);
    CHECK(std::is_sorted(guest.events.begin(), guest.events.end(), [](const auto& a, const auto& b) { return a.ts < b.ts; }));

    // Each system vector's handler in the guest follows the host's injection of that
    // vector on that vCPU: on the aligned clock none comes before one, and the gap is
    // what an emulated guest takes to enter (tens of µs, a few ms when L1 is busy).
    const auto inj = injections(host);
    std::uint64_t entries = 0, matched = 0, before_any = 0;
    std::vector<std::int64_t> gaps;
    for (const GuestEvent& g : guest.events) {
        if (g.kind != GuestEventKind::VectorEntry) continue;
        ++entries;
        const auto it = inj.find({g.vcpu.value(), g.vector.value()});
        if (it == inj.end()) continue;
        const auto at = std::upper_bound(it->second.begin(), it->second.end(), g.ts.value());
        if (at == it->second.begin()) {
            ++before_any;
            continue;
        }
        const std::int64_t gap = g.ts.value() - *(at - 1);
        gaps.push_back(gap);
        if (gap > 0 && gap < 50'000'000) ++matched;
    }
    INFO(entries << " vector entries, " << matched << " matched, " << before_any << " before any injection");
    CHECK(entries > 9000);
    CHECK(before_any == 0);
    CHECK(matched * 100 >= entries * 99);
    std::sort(gaps.begin(), gaps.end());
    CHECK(gaps.front() > 0);
    CHECK(gaps[gaps.size() / 2] < 1'000'000);  // the median under 1 ms

    // An exact clock, not a lucky one: 1 ms off and the handlers stop following their
    // injections in step (the median gap moves by the same 1 ms).
    for (GuestEvent& g : guest.events) g.ts = TimestampNs(g.ts.value() + 1'000'000);
    std::vector<std::int64_t> shifted;
    for (const GuestEvent& g : guest.events) {
        if (g.kind != GuestEventKind::VectorEntry) continue;
        const auto it = inj.find({g.vcpu.value(), g.vector.value()});
        if (it == inj.end()) continue;
        const auto at = std::upper_bound(it->second.begin(), it->second.end(), g.ts.value());
        if (at != it->second.begin()) shifted.push_back(g.ts.value() - *(at - 1));
    }
    std::sort(shifted.begin(), shifted.end());
    CHECK(shifted[shifted.size() / 2] > gaps[gaps.size() / 2] + 500'000);
}

TEST_CASE("a guest's report text, cut, wrapped by a mail client and annotated, gives the trace.dat's guest events",
          "[capture][guest][text][samples]") {
    const GuestTrace dat = load_guest_trace(sample("hostguest-guest.dat"));
    const std::string report = run("trace-cmd report '" + sample("hostguest-guest.dat") + "'").out;
    REQUIRE(report.size() > 100000);
    // an excerpt from the middle, cut inside a line at both ends, with a person's
    // remarks and another subsystem's events in it
    const std::size_t from = report.size() / 3, to = report.size() / 3 + 40000;
    std::string excerpt = report.substr(from, to - from);
    std::istringstream in(excerpt);
    std::string mixed, line;
    for (int n = 0; std::getline(in, line); ++n) {
        mixed += line + '\n';
        if (n == 40) mixed += "here the timer fires on CPU 2 while virtio0 is still in its handler:\n";
        if (n == 90)
            mixed += "          <idle>-0     [001] 52611062343: sched_switch:         prev_comm=swapper/1 prev_pid=0 "
                     "prev_prio=120 prev_state=R ==> next_comm=sh next_pid=107 next_prio=120\n";
    }
    for (WrapStyle style : {WrapStyle::Mixed, WrapStyle::MidToken, WrapStyle::Quoted}) {
        INFO(to_string(style));
        const Trace text = load_text(mail_wrap(mixed, style, 76, 7), "guest-report.txt");
        CHECK(text.meta.clock == "x86-tsc");
        const GuestTrace g = guest_events(text);
        REQUIRE(g.events.size() > 300);
        // the text's events are the file's, field for field, in order, from the first
        // whole line on
        const auto first = std::find_if(dat.events.begin(), dat.events.end(),
                                        [&](const GuestEvent& d) { return d.guest_ts == g.events.front().guest_ts && d.vcpu == g.events.front().vcpu; });
        REQUIRE(first != dat.events.end());
        const auto i0 = static_cast<std::size_t>(first - dat.events.begin());
        for (std::size_t i = 0; i < g.events.size(); ++i) {
            INFO("guest event " << i);
            const GuestEvent& a = g.events[i];
            const GuestEvent& b = dat.events.at(i0 + i);
            REQUIRE(a.guest_ts == b.guest_ts);
            REQUIRE(a.vcpu == b.vcpu);
            REQUIRE(a.kind == b.kind);
            REQUIRE(a.vector == b.vector);
            REQUIRE(a.irq == b.irq);
            REQUIRE(a.ret == b.ret);
            REQUIRE(g.names[a.name_id] == dat.names[b.name_id]);
        }
        // it stops where the excerpt stops: at most the cut last line is missing
        const auto last = std::find_if(dat.events.begin(), dat.events.end(),
                                       [&](const GuestEvent& d) { return d.guest_ts > g.events.back().guest_ts; });
        CHECK(static_cast<std::size_t>(last - first) == g.events.size());
    }
}

TEST_CASE("a guest trace that cannot be aligned or read says why, naming the file and the record",
          "[capture][guest][cli][bad-input]") {
    // a host trace on the local clock: no TSC to map the guest's onto
    GuestTrace guest = load_guest_trace(sample("hostguest-guest.dat"));
    const GuestClock c = align_guest_clock(host_with_info("pveoi-on.dat"), guest);
    CHECK(c.method == GuestClock::Method::None);
    CHECK(c.detail.find("-C tsc2nsec") != std::string::npos);
    CHECK(c.unaligned == guest.events.size());
    auto r = run(cli() + " events " + sample("pveoi-on.dat") + " --guest " + sample("hostguest-guest.dat"), true);
    CHECK(r.status == 2);
    CHECK(r.out.find("hostguest-guest.dat: its events cannot be put on the host trace's clock") != std::string::npos);

    // a "guest" trace with no guest events in it
    r = run(cli() + " events " + sample("hostguest.dat") + " --guest " + sample("pveoi-on.dat"), true);
    CHECK(r.status == 2);
    CHECK(r.out.find("pveoi-on.dat: no guest interrupt events in it") != std::string::npos);

    // a field that does not read: the line is named
    const std::string bad = "cpus=4\n"
                            "          <idle>-0     [002] 52611062343: local_timer_entry:    vector=236\n"
                            "          <idle>-0     [002] 52611069921: local_timer_exit:     vector=two-three-six\n";
    const auto p = scratch("bad-guest.txt");
    write_file(p, bad);
    r = run(cli() + " events " + sample("hostguest.dat") + " --guest " + p.string(), true);
    CHECK(r.status == 2);
    CHECK(r.out.find("bad-guest.txt: line 3: record 1, local_timer_exit \"vector=two-three-six\": no vector=N in it") != std::string::npos);
}

TEST_CASE("events --guest prints the guest's handlers between the host's injection and EOI, on the host's clock",
          "[cli][guest][samples]") {
    const auto r = run(cli() + " events " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat") +
                           " --vcpu 2 --range 63.057003432:63.057211258",
                       true);
    REQUIRE(r.status == 0);
    INFO(r.out);
    // the timer on vCPU 2: injected, handled by local_timer in the guest, which EOIs it
    // (PV EOI, seen at the next exit) before its handler returns
    const char* order[] = {"tsc: exact; offset -90676228491 cycles", "kvm_inj_virq vector=0xec", "g12965 63.057055812",
                           "guest:local_timer_entry vector=0xec", "kvm_eoi apicid=0x2 vector=0xec", "kvm_pv_eoi apicid=0x2 vector=0xec",
                           "guest:local_timer_exit vector=0xec"};
    std::size_t at = 0;
    for (const char* s : order) {
        INFO(s);
        const auto p = r.out.find(s, at);
        REQUIRE(p != std::string::npos);
        at = p;
    }
    const auto j = run(cli() + " events " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat") +
                       " --kind irq_handler_entry --vcpu 2 --range 63.042:63.043 --json");
    CHECK(j.out == "{\"side\":\"guest\",\"record\":12961,\"ts_ns\":63042967767,\"guest_ts\":79215554529,\"vm\":0,\"vcpu\":2,"
                   "\"name\":\"irq_handler_entry\",\"irq\":10,\"irq_name\":\"virtio0\"}\n");
}

namespace {

// `check --guest` on the hostguest pair with the guest side given as `guest` (a path):
// its whole JSON, after the exit status `status`.
nlohmann::json check_guest(const std::string& guest, int status = 0) {
    const auto r = run(cli() + " check " + sample("hostguest.dat") + " --guest '" + guest + "' --json", status != 0);
    REQUIRE(r.status == status);
    return nlohmann::json::parse(r.out);
}

// The findings of `rule` in a check's JSON.
std::vector<nlohmann::json> findings_of(const nlohmann::json& j, const char* rule) {
    std::vector<nlohmann::json> out;
    for (const auto& f : j.at("findings"))
        if (f.at("rule") == rule) out.push_back(f);
    return out;
}

// The guest's report with one line edited: `edit` gets the line holding `stamp` and
// returns what replaces it ("" removes it).
std::string edited_guest_report(const std::string& stamp, const std::function<std::string(const std::string&)>& edit) {
    std::istringstream in(run("trace-cmd report '" + sample("hostguest-guest.dat") + "'").out);
    std::string out, line;
    int hits = 0;
    while (std::getline(in, line)) {
        if (line.find(stamp) != std::string::npos) {
            ++hits;
            const std::string now = edit(line);
            if (!now.empty()) out += now + '\n';
            continue;
        }
        out += line + '\n';
    }
    REQUIRE(hits == 1);
    const auto p = scratch("edited-guest-" + std::to_string(std::hash<std::string>{}(out) % 100000) + ".txt");
    write_file(p, out);
    return p.string();
}

}  // namespace

TEST_CASE("check --guest matches every injection to the guest's handler of its vector, and every handler to an injection",
          "[replay][guest][cli][samples]") {
    const auto j = check_guest(sample("hostguest-guest.dat"));
    CHECK(j.at("findings").empty());
    const auto& g = j.at("guest");
    INFO(g.dump());
    CHECK(g.at("injections") == 13267);
    CHECK(g.at("matched") == 13267);
    CHECK(g.at("unhandled") == 0);
    // 4 timer injections on vCPU 0 in the guest's first second of boot fall in a 21 ms
    // stretch where the guest's trace holds nothing on CPU 0: not judged (the host saw
    // each one's EOI)
    CHECK(g.at("silent") == 4);
    CHECK(g.at("silent_eoied") == 4);
    // KVM's async page fault notifications (0xf3) have no trace point in the guest
    CHECK(g.at("untraced") == 3);
    CHECK(g.at("untraced_vectors") == nlohmann::json::array({0xf3}));
    CHECK(g.at("unexplained") == 0);
    CHECK(g.at("handlers") == 13271);
    CHECK(g.at("explained") == g.at("handlers"));
    CHECK(g.at("explained_by_accept") == 0);
    CHECK(g.at("handlers_not_judged") == 0);
    CHECK(g.at("unmapped") == 0);
    // the timer's handler is entered tens of µs after its injection, and Linux EOIs it
    // inside the handler; an edge IOAPIC IRQ (0x30) is EOI'd before its handler runs
    const auto& t = g.at("latency").at("0xec");
    CHECK(t.at("inject_to_handler").at("n") == 8923);
    CHECK(t.at("inject_to_handler").at("p50_ns").get<std::int64_t>() < 200'000);
    CHECK(g.at("eoi_inside_handler").get<std::uint64_t>() > g.at("eoi_after_handler").get<std::uint64_t>());
    CHECK(g.at("latency").at("0x30").at("handler_to_eoi").at("n") == 0);
    // the rules judged, and said nothing
    for (const auto& n : j.at("not_judged")) CHECK(n.at("rule").get<std::string>().rfind("GUEST-", 0) != 0);

    // the text: the stage table under the check's report
    const auto r = run(cli() + " check " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat"));
    CHECK(r.out.find("guest handlers: 13267/13267 (100.0%) injections reached their vector's handler in the guest; 0 did not "
                     "(GUEST-INJECTION-UNHANDLED)") != std::string::npos);
    CHECK(r.out.find("latency (µs)  accept → inject         inject → handler        handler run               handler → EOI") !=
          std::string::npos);
    CHECK(run(cli() + " check - --follow --guest " + sample("hostguest-guest.dat") + " < /dev/null", true).status == 64);
    // without a guest trace the guest rules neither judge nor are listed as not judged
    const auto host_only = nlohmann::json::parse(run(cli() + " check " + sample("hostguest.dat") + " --json").out);
    CHECK(!host_only.contains("guest"));
    for (const auto& n : host_only.at("not_judged")) CHECK(n.at("rule").get<std::string>().rfind("GUEST-", 0) != 0);
}

TEST_CASE("check --guest names the injection whose guest handler is gone, and the handler of a vector nobody injected",
          "[replay][guest][cli][samples]") {
    // g12965: vCPU 2's local_timer_entry for the 0xec injected at host record 149324
    const std::string stamp = "[002] 79253519796: local_timer_entry:";
    const auto gone = check_guest(edited_guest_report(stamp, [](const std::string&) { return std::string(); }), 1);
    const auto unhandled = findings_of(gone, "GUEST-INJECTION-UNHANDLED");
    REQUIRE(unhandled.size() == 1);
    CHECK(unhandled[0].at("record") == 149324);
    CHECK(unhandled[0].at("vcpu") == 2);
    CHECK(unhandled[0].at("diagnosis").at("cause") == "missing");
    CHECK(unhandled[0].at("diagnosis").at("kind") == "guest's local_timer_entry");
    CHECK(unhandled[0].at("diagnosis").at("vector") == 0xec);
    CHECK(gone.at("findings").size() == 1);
    CHECK(gone.at("guest").at("unhandled") == 1);

    // the same line with another vector: the guest ran the reschedule handler where the
    // host injected the timer — one root naming the handler's vector, the unhandled
    // injection its follow-on
    const auto shifted = check_guest(edited_guest_report(stamp, [](const std::string& l) {
        return l.substr(0, l.rfind("vector=")) + "vector=253";
    }), 1);
    const auto unexplained = findings_of(shifted, "GUEST-HANDLER-UNEXPLAINED");
    REQUIRE(unexplained.size() == 1);
    CHECK(unexplained[0].at("guest_record") == 12965);
    CHECK(unexplained[0].at("vcpu") == 2);
    const auto& d = unexplained[0].at("diagnosis");
    CHECK(d.at("cause") == "wrong-field");
    CHECK(d.at("field") == "vector");
    CHECK(d.at("seen") == 0xfd);
    CHECK(d.at("expected") == 0xec);
    CHECK(d.at("guest_record") == 12965);
    const auto follow = findings_of(shifted, "GUEST-INJECTION-UNHANDLED");
    REQUIRE(follow.size() == 1);
    CHECK(follow[0].at("record") == 149324);
    CHECK(follow[0].contains("caused_by"));
    CHECK(shifted.at("summary").at("follow_ons") == 1);

    // the text says it in a sentence, at the guest's record
    const auto text = run(cli() + " check " + sample("hostguest.dat") + " --guest '" + edited_guest_report(stamp, [](const std::string& l) {
        return l.substr(0, l.rfind("vector=")) + "vector=253";
    }) + "'", true);
    CHECK(text.status == 1);
    CHECK(text.out.find("vm0/vcpu2: the guest's local_timer_entry at guest record g12965 (63.057055 s) has vector 0xfd where 0xec was expected") !=
          std::string::npos);
    CHECK(text.out.find("GUEST-HANDLER-UNEXPLAINED vm0/vcpu2 at 63.057055812 guest record g12965 (after record 149326)") != std::string::npos);
}

TEST_CASE("stats --guest puts check's stage table under the trace's counts, and refuses a host trace off the TSC", "[guest][cli][samples]") {
    const auto with = nlohmann::json::parse(
        run(cli() + " stats " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat") + " --json").out);
    const auto without = nlohmann::json::parse(run(cli() + " stats " + sample("hostguest.dat") + " --json").out);
    // the counts are the trace's, read whole or streamed
    CHECK(with.at("records") == without.at("records"));
    CHECK(with.at("exits_by_reason") == without.at("exits_by_reason"));
    CHECK(!without.contains("guest"));
    // the stages are check's
    const auto checked = check_guest(sample("hostguest-guest.dat"));
    CHECK(with.at("guest").at("latency") == checked.at("guest").at("latency"));
    const auto text = run(cli() + " stats " + sample("hostguest.dat") + " --guest " + sample("hostguest-guest.dat"));
    CHECK(text.status == 0);
    CHECK(text.out.find("latency (µs)  accept → inject         inject → handler        handler run               handler → EOI") !=
          std::string::npos);
    const auto refused = run(cli() + " stats " + sample("pveoi-on.dat") + " --guest " + sample("hostguest-guest.dat"), true);
    CHECK(refused.status == 2);
    CHECK(refused.out.find("hostguest-guest.dat: its events cannot be put on the host trace's clock") != std::string::npos);
}

TEST_CASE("host and guest on ns clocks of their own align from where the guest's events can be, within the bound the TSC's truth confirms",
          "[guest][samples]") {
    LoadOptions load;
    load.other_event_info = true;
    const Trace host = load_trace(sample("hostguest.dat"), load);
    GuestTrace exact = load_guest_trace(sample("hostguest-guest.dat"));
    REQUIRE(align_guest_clock(host, exact).method == GuestClock::Method::Tsc);
    std::map<std::uint64_t, std::int64_t> truth;  // guest record → host ns
    for (const auto& g : exact.events) truth[g.record] = g.ts.value();

    // The same run as two ns clocks of their own would record it: the host's times kept
    // but its TSC2NSEC forgotten (as on `local`), the guest's cycles turned into ns at
    // the host's rate from the guest's own origin.
    Trace ns_host = host;
    ns_host.meta.tsc2nsec.reset();
    ns_host.meta.clock = "local";
    GuestTrace ns_guest = load_guest_trace(sample("hostguest-guest.dat"));
    ns_guest.meta.clock = "local";
    const TscToNs rate = *host.meta.tsc2nsec;
    for (auto& g : ns_guest.events)
        g.guest_ts = g.ts = TimestampNs(static_cast<std::int64_t>((static_cast<unsigned __int128>(g.guest_ts.value()) * rate.mult) >> rate.shift));
    const GuestClock c = align_guest_clock(ns_host, ns_guest);
    INFO(c.detail);
    REQUIRE(c.method == GuestClock::Method::GuestTime);
    CHECK(c.aligned == 26573);
    CHECK(c.bound_ns > 0);
    CHECK(c.bound_ns <= 15'000);  // the offsets that fit span 25.8 µs on this run
    std::int64_t worst = 0;
    for (const auto& g : ns_guest.events) worst = std::max(worst, std::abs(g.ts.value() - truth.at(g.record)));
    INFO("worst error " << worst << " ns");
    CHECK(worst <= c.bound_ns + 2);  // (+2: the two conversions' rounding)
    // (the midpoint lands 1.8 µs from the truth; the bound is ±12.9 µs) and the check on
    // these clocks says what it says on the TSC's
    replay::ReplayOptions o;
    o.guest = &ns_guest;
    o.guest_vm = c.vm;
    const auto r = replay::replay(ns_host, o);
    REQUIRE(r.guest);
    CHECK(r.guest->matched == 13267);
    CHECK(r.guest->injections == 13267);
    CHECK(r.guest->unexplained == 0);
    CHECK(r.findings.empty());

    // a guest in cycles beside a host in ns is refused, saying what to record
    GuestTrace cycles = load_guest_trace(sample("hostguest-guest.dat"));
    const GuestClock refused = align_guest_clock(ns_host, cycles);
    CHECK(refused.method == GuestClock::Method::None);
    CHECK(refused.detail.find("-C tsc2nsec") != std::string::npos);
}
