// The GUI's data side without a window: navigation, jumps, filters, the event table's
// rows and the latency histograms, checked on a real capture against brute force.
#include <catch2/catch.hpp>

#include <set>

#include "compare_model.hpp"
#include "events_model.hpp"
#include "findings_model.hpp"
#include "helpers.hpp"
#include "hover.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "latency_model.hpp"
#include "legend.hpp"
#include "navigation_model.hpp"
#include "overview_model.hpp"
#include "palette.hpp"
#include "session.hpp"
#include "statistics_model.hpp"
#include "time_axis.hpp"
#include "timeline_model.hpp"
#include "time_text.hpp"

using namespace irqflow;
using namespace irqflow::test;
using irqflow::ui::parse_time;
using irqflow::ui::parse_time_range;
using namespace irqflow::gui;

namespace {

struct Loaded {
    Trace t;
    replay::ReplayResult r;
    Timeline tl;
};

const Loaded& pveoi_on() {
    static const Loaded l = [] {
        Loaded x;
        x.t = load_trace(sample("pveoi-on.dat"));
        replay::ReplayOptions o;
        o.collect_details = true;
        x.r = replay::replay(x.t, o);
        x.tl = build_timeline(x.t, x.r, nullptr);
        return x;
    }();
    return l;
}

}  // namespace

TEST_CASE("zoom keeps the time under the cursor, box zoom shows the box, pan moves by a fraction", "[gui][navigation]") {
    Navigator n(1'000'000'000, 3'000'000'000);
    const auto under = n.view().at(0.25);
    n.zoom(0.5, 0.25);
    CHECK(std::llabs(n.view().at(0.25) - under) <= 2);
    CHECK(n.view().span() == Approx(1e9).epsilon(1e-6));
    const auto a = n.view().at(0.1), b = n.view().at(0.3);
    CHECK(n.box(0.3, 0.1));  // either direction
    CHECK(n.view().t0 == a);
    CHECK(n.view().t1 == b);
    const auto before = n.view();
    CHECK_FALSE(n.box(0.5, 0.5005));  // a click, not a box: the view stays
    CHECK(n.view().t0 == before.t0);
    n.pan(0.5);
    CHECK(n.view().t0 == before.t0 + static_cast<std::int64_t>(0.5 * before.span()));
    for (int i = 0; i < 100; ++i) n.zoom(0.1, 0.5);  // zooming in stops at 1 µs across
    CHECK(n.view().t1 - n.view().t0 == Navigator::kMinSpan);
    n.whole();
    CHECK(n.view().t0 == 1'000'000'000);
    CHECK(n.view().t1 == 3'000'000'000);
    n.centre_on(2'500'000'000);
    CHECK(n.view().t0 + (n.view().t1 - n.view().t0) / 2 == 2'500'000'000);
}

TEST_CASE("times and records to go to are parsed and found", "[gui][navigation]") {
    CHECK(parse_time("12.5") == 12'500'000'000);
    CHECK(parse_time("12.5s") == 12'500'000'000);
    CHECK(parse_time(" 300ms ") == 300'000'000);
    CHECK(parse_time("17us") == 17'000);
    CHECK(parse_time("123ns") == 123);
    CHECK_FALSE(parse_time(""));
    CHECK_FALSE(parse_time("s"));
    CHECK_FALSE(parse_time("12.5 apples"));
    CHECK_FALSE(parse_time("nan"));
    // relative to the trace's start, as the axis's second row shows it; spans of either
    CHECK(parse_time("+4.5s", 20'000'000'000) == 24'500'000'000);
    CHECK(parse_time("+300ms", 1'000) == 300'001'000);
    CHECK_FALSE(parse_time("+-1s", 0));
    CHECK(parse_time_range("14.0:14.2") == std::pair<std::int64_t, std::int64_t>{14'000'000'000, 14'200'000'000});
    CHECK(parse_time_range("+4.5s:+4.7s", 10'000'000'000) == std::pair<std::int64_t, std::int64_t>{14'500'000'000, 14'700'000'000});
    CHECK_FALSE(parse_time_range("14.2:14.0"));
    CHECK_FALSE(parse_time_range("14.2"));
    const auto& L = pveoi_on();
    for (std::size_t i = 0; i < L.t.events.size(); i += 4099) {
        const auto& e = L.t.events[i];
        if (e.kind == EventKind::Lost) continue;
        CHECK(record_time(L.t, e.record) == e.ts.value());
    }
    CHECK_FALSE(record_time(L.t, L.t.records() + 10));
}

TEST_CASE("jumps find the next and previous injection, EOI and finding like a linear search", "[gui][navigation]") {
    const auto& L = pveoi_on();
    std::string err;
    auto f = parse_filter(L.tl, "1,3", "0xec", err);
    REQUIRE(f);
    CHECK(f->row_count() == 2);
    CHECK(f->rows() == std::vector<int>{-1, 0, -1, 1});
    // brute force over the replay's interrupt lifecycles
    auto brute = [&](bool inject, std::int64_t from, bool forward) {
        std::optional<std::int64_t> best;
        for (const auto& ir : L.r.interrupts) {
            if (ir.vector != 0xec || (ir.vcpu.value() != 1 && ir.vcpu.value() != 3)) continue;
            const std::int64_t ts = inject ? ir.inject_ts : ir.eoi_ts;
            if (!ts || (forward ? ts <= from : ts >= from)) continue;
            if (!best || (forward ? ts < *best : ts > *best)) best = ts;
        }
        return best;
    };
    int found = 0;
    for (int k = 0; k <= 50; ++k) {
        const std::int64_t from = L.tl.t0 + (L.tl.t1 - L.tl.t0) * k / 50;
        for (bool forward : {true, false}) {
            INFO("from " << from << (forward ? " forward" : " backward"));
            const auto inj = find_next(L.tl, *f, JumpTarget::Injection, from, forward);
            CHECK(inj == brute(true, from, forward));
            CHECK(find_next(L.tl, *f, JumpTarget::Eoi, from, forward) == brute(false, from, forward));
            found += inj.has_value();
        }
    }
    CHECK(found > 50);
    // stepping forward visits every 0xec injection of vCPU 1 and 3 in order
    std::size_t steps = 0;
    for (auto ts = find_next(L.tl, *f, JumpTarget::Injection, L.tl.t0 - 1, true); ts; ts = find_next(L.tl, *f, JumpTarget::Injection, *ts, true))
        ++steps;
    std::set<std::int64_t> distinct;
    for (const auto& ir : L.r.interrupts)
        if (ir.vector == 0xec && (ir.vcpu.value() == 1 || ir.vcpu.value() == 3)) distinct.insert(ir.inject_ts);
    CHECK(steps == distinct.size());
    // findings: none on a healthy capture
    CHECK_FALSE(find_next(L.tl, Filter::all(L.tl), JumpTarget::Finding, L.tl.t0, true));
}

TEST_CASE("filters name what is wrong with them", "[gui][navigation]") {
    const auto& L = pveoi_on();
    std::string err;
    CHECK_FALSE(parse_filter(L.tl, "7", "", err));
    CHECK(err == "the trace has no vCPU 7");
    CHECK_FALSE(parse_filter(L.tl, "1,x", "", err));
    CHECK(err.find("\"x\"") != std::string::npos);
    CHECK_FALSE(parse_filter(L.tl, "", "0x100", err));
    CHECK(err.find("0..255") != std::string::npos);
    auto all = parse_filter(L.tl, "", "", err);
    REQUIRE(all);
    CHECK(all->row_count() == 4);
    CHECK(all->vector == -1);
}

TEST_CASE("the event table lists exactly the filtered events of the view", "[gui][panels]") {
    const auto& L = pveoi_on();
    const LaneLookup lanes(L.tl);
    const ViewRange v{20'000'000'000, 20'300'000'000};
    auto all = events_in_view(L.t, lanes, Filter::all(L.tl), v);
    CHECK_FALSE(all.filtered);
    std::size_t brute = 0;
    for (const auto& e : L.t.events) brute += e.ts.value() >= v.t0 && e.ts.value() <= v.t1;
    CHECK(all.size() == brute);
    CHECK(brute > 1000);
    std::string err;
    auto f = parse_filter(L.tl, "2", "0xec", err);
    REQUIRE(f);
    auto some = events_in_view(L.t, lanes, *f, v);
    CHECK(some.filtered);
    std::vector<std::size_t> expect;
    for (std::size_t i = 0; i < L.t.events.size(); ++i) {
        const auto& e = L.t.events[i];
        if (e.ts.value() < v.t0 || e.ts.value() > v.t1 || e.vcpu.value() != 2) continue;
        if (event_vector(e) == 0xec) expect.push_back(i);
    }
    CHECK(some.picked == expect);
    CHECK(expect.size() > 10);
    for (std::size_t i : expect) {  // accepts, injections, EOIs of 0xec on vCPU 2
        const auto k = L.t.events[i].kind;
        CHECK((k == EventKind::ApicAcceptIrq || k == EventKind::InjVirq || k == EventKind::Eoi || k == EventKind::PvEoi ||
               k == EventKind::ApicIpi));
    }
    auto capped = events_in_view(L.t, lanes, *f, ViewRange{L.tl.t0, L.tl.t1}, 1000);
    CHECK(capped.too_many);
    CHECK(capped.picked.empty());
}

TEST_CASE("latency histograms hold every lifecycle of the filter in power-of-two buckets", "[gui][panels]") {
    const auto& L = pveoi_on();
    const LaneLookup lanes(L.tl);
    for (int vector : {-1, 0xec, 0xfb}) {
        Filter f = Filter::all(L.tl);
        f.vector = vector;
        const auto h = latency_histogram(L.r, lanes, f, LatencyStage::InjectToEoi);
        std::uint64_t n = 0, in_bucket = 0;
        for (const auto& ir : L.r.interrupts) {
            if ((vector >= 0 && ir.vector != vector) || !ir.inject_ts || !ir.eoi_ts) continue;
            ++n;
            const auto d = ir.eoi_ts - ir.inject_ts;
            const int k = d <= 1 ? 0 : 63 - __builtin_clzll(static_cast<unsigned long long>(d));
            in_bucket += k >= h.first && k <= h.last && h.count[static_cast<std::size_t>(k)] > 0;
        }
        INFO("vector " << vector);
        CHECK(h.samples == n);
        CHECK(in_bucket == n);
        std::uint64_t sum = 0;
        for (auto c : h.count) sum += c;
        CHECK(sum == n);
        CHECK(n > 0);
    }
    Filter none = Filter::all(L.tl);
    none.vector = 0x11;  // never used
    CHECK(latency_histogram(L.r, lanes, none, LatencyStage::AcceptToInject).samples == 0);
}

#include "inspector_model.hpp"

TEST_CASE("every bit in service at a time is explained by its accept, injection and EOI records", "[gui][inspector]") {
    const auto& L = pveoi_on();
    const StateIndex index(L.t);
    std::size_t explained = 0, bits = 0;
    for (std::size_t k = 1; k <= 60; ++k) {
        const std::int64_t ts = L.t.events[k * L.t.events.size() / 61].ts.value();
        for (const auto& st : index.at(ts)) {
            if (!st.synced) continue;
            for (int v = 0; v < 256; ++v) {
                if (!st.isr.test(v)) continue;
                ++bits;
                const auto* ir = interrupt_in_service(L.r, st.vm, st.vcpu, v, ts);
                INFO("vcpu " << st.vcpu.value() << " vector " << v << " at " << ts);
                REQUIRE(ir);
                CHECK(ir->inject_ts <= ts);
                CHECK((ir->eoi_ts == 0 || ir->eoi_ts >= ts));
                // the records it names are that vCPU's injection (and EOI) of that vector
                auto event_of = [&](std::uint64_t record) -> std::optional<Event> {
                    for (const Event e : L.t.events)
                        if (e.record == record && e.kind != EventKind::Lost) return e;
                    return std::nullopt;
                };
                const std::optional<Event> inj = event_of(ir->inject_record);
                REQUIRE(inj);
                CHECK(inj->kind == EventKind::InjVirq);
                CHECK(event_vector(*inj) == v);
                CHECK(inj->vcpu == st.vcpu);
                if (ir->eoi_ts) {
                    const std::optional<Event> eoi = event_of(ir->eoi_record);
                    REQUIRE(eoi);
                    CHECK((eoi->kind == EventKind::Eoi || eoi->kind == EventKind::PvEoi));
                    CHECK(event_vector(*eoi) == v);
                }
                if (ir->accept_ts) {
                    const std::optional<Event> acc = event_of(ir->accept_record);
                    REQUIRE(acc);
                    CHECK(acc->kind == EventKind::ApicAcceptIrq);
                    CHECK(event_vector(*acc) == v);
                }
                ++explained;
            }
        }
    }
    CHECK(bits >= 5);
    CHECK(explained == bits);
}

TEST_CASE("the findings tab groups follow-ons under their root, in order", "[gui][panels]") {
    const Trace t = load_trace(std::string(IRQFLOW_CASES) + "/ISR-ORDER-fires-cascade-collapsed.txt");
    const auto r = replay::replay(t);
    REQUIRE(r.findings.size() == 3);
    const auto groups = gui::finding_groups(r);
    REQUIRE(groups.size() == 1);
    CHECK(groups[0].root == 0);
    CHECK(groups[0].follow_ons == std::vector<std::size_t>{1, 2});

    replay::ReplayResult two;  // two roots, the second with a follow-on after a root of its own
    two.findings.resize(4);
    two.findings[2].caused_by = 1;
    two.findings[3].caused_by = 0;
    const auto g = gui::finding_groups(two);
    REQUIRE(g.size() == 2);
    CHECK(g[0].follow_ons == std::vector<std::size_t>{3});
    CHECK(g[1].follow_ons == std::vector<std::size_t>{2});

    replay::ReplayResult later;  // a root decided after its follow-on (an IPI send), and a self-loop
    later.findings.resize(3);
    later.findings[0].caused_by = 1;
    later.findings[2].caused_by = 2;
    const auto l = gui::finding_groups(later);
    REQUIRE(l.size() == 2);
    CHECK(l[0].root == 1);
    CHECK(l[0].follow_ons == std::vector<std::size_t>{0});
    CHECK(l[1].root == 2);
    CHECK(l[1].follow_ons.empty());
}

TEST_CASE("the timeline shows the events L1 injects into L2 and jumps stop at them as injections", "[gui]") {
    const Trace t = load_trace(std::string(IRQFLOW_CASES) + "/NESTED-EVENT-LOST-quiet-reinjected-after-npf.txt");
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(t, o);
    const Timeline tl = build_timeline(t, r, nullptr);
    REQUIRE(tl.lanes.size() == 1);
    std::vector<Marker> nested;
    for (const auto& m : tl.lanes[0].markers)
        if (m.kind == Marker::NestedInjection) nested.push_back(m);
    REQUIRE(nested.size() == 1);
    CHECK(nested[0].vector == 0xec);
    CHECK(nested[0].ts == t.events[1].ts.value());
    CHECK(r.stats.nested_injections == 1);  // L0's re-injection into L2 is not L1's APIC's
    CHECK(find_next(tl, Filter::all(tl), JumpTarget::Injection, tl.t0 - 1, true) == std::optional<std::int64_t>(nested[0].ts));
    CHECK_FALSE(find_next(tl, Filter::all(tl), JumpTarget::Eoi, tl.t0 - 1, true));
}

TEST_CASE("the loading overview holds each vCPU thread's guest, host and halted time and exits, whatever the bucket width", "[gui][overview]") {
    const Loaded& L = pveoi_on();
    OverviewBuilder b;
    const EventSink add = [&b](const Event& e) { b.add(e); };
    TraceStream stream(sample("pveoi-on.dat"), {}, FirstPass{&add, {}});  // the GUI's first pass
    b.finish();
    const auto o = b.snapshot();
    REQUIRE(o);
    CHECK(o->events == L.t.events.size());
    CHECK(o->t0 == L.t.events.front().ts.value());
    // 20 s of trace in 4096 buckets: the width doubled from 1 µs up to what covers it
    CHECK(o->bucket_ns >= (o->last_ts - o->t0) / static_cast<std::int64_t>(Overview::kBuckets));
    CHECK(o->bucket_ns < 2 * ((o->last_ts - o->t0) / static_cast<std::int64_t>(Overview::kBuckets) + 1000));
    REQUIRE(o->lanes.size() == L.tl.lanes.size());
    for (const auto& lane : o->lanes) {
        INFO("vcpu " << lane.vcpu_id);
        const auto it = std::find_if(L.tl.lanes.begin(), L.tl.lanes.end(), [&](const Lane& t) { return t.vcpu.value() == lane.vcpu_id; });
        REQUIRE(it != L.tl.lanes.end());
        std::array<std::int64_t, 3> want{}, got{};
        for (const auto& band : it->bands) want[static_cast<std::size_t>(band.state)] += band.end - band.start;
        std::uint64_t exits = 0;
        for (const auto& bucket : lane.buckets) {
            for (std::size_t s = 0; s < 3; ++s) got[s] += bucket.time[s];
            exits += bucket.exits;
        }
        CHECK(exits == it->exits.size());
        for (std::size_t s = 0; s < 3; ++s) CHECK(got[s] == want[s]);
    }
}

TEST_CASE("the per-block state times give each band's time before it as a brute-force sum does", "[gui]") {
    const Loaded& L = pveoi_on();
    for (const auto& lane : L.tl.lanes) {
        std::array<std::int64_t, 3> sum{};
        std::size_t wrong = 0;
        for (std::size_t i = 0; i <= lane.bands.size(); ++i) {
            wrong += lane.time_before(i) != sum;
            if (i < lane.bands.size()) sum[static_cast<std::size_t>(lane.bands[i].state)] += lane.bands[i].end - lane.bands[i].start;
        }
        CHECK(wrong == 0);
        CHECK(lane.state_time.size() == lane.bands.size() / Lane::kStateBlock + 1);
    }
}

TEST_CASE("the time index only ever starts a search at or before its answer, and within one grid step of time before it", "[gui]") {
    const Loaded& L = pveoi_on();
    for (const auto& lane : L.tl.lanes) {
        const auto& x = lane.exits;
        std::size_t wrong = 0, far = 0;
        for (std::int64_t ts = L.tl.t0 - 1000; ts <= L.tl.t1 + 1000; ts += (L.tl.t1 - L.tl.t0) / 9973 + 1) {
            const std::size_t answer = static_cast<std::size_t>(
                std::lower_bound(x.begin(), x.end(), ts, [](const ExitTick& e, std::int64_t t) { return e.ts < t; }) - x.begin());
            const std::size_t start = lane.exit_index.lower(ts);
            wrong += start > answer;
            if (start < answer) far += x[start].ts < ts - lane.exit_index.step_ns();
        }
        CHECK(wrong == 0);
        CHECK(far == 0);
    }
}

TEST_CASE("the state grid holds, at each of its points, the time in each state a brute-force sum over the bands gives", "[gui]") {
    const Loaded& L = pveoi_on();
    for (const auto& lane : L.tl.lanes) {
        const StateGrid& g = lane.state_grid;
        REQUIRE(g.steps() >= 2);
        std::size_t wrong = 0;
        for (std::size_t k = 0; k <= g.steps(); k += std::max<std::size_t>(1, g.steps() / 997)) {
            const std::int64_t at = L.tl.t0 + static_cast<std::int64_t>(k) * g.step_ns();
            std::array<std::int64_t, 3> want{};
            for (const Band& b : lane.bands)
                if (b.start < at) want[static_cast<std::size_t>(b.state)] += std::min(b.end, at) - b.start;
            wrong += g.before(at) != want;
            // any time between two points reads the point before it
            wrong += g.before(at + g.step_ns() - 1) != want && k < g.steps();
        }
        CHECK(wrong == 0);
        CHECK(g.before(L.tl.t0 - 5) == std::array<std::int64_t, 3>{});
        // past the end: everything
        std::array<std::int64_t, 3> all{};
        for (const Band& b : lane.bands) all[static_cast<std::size_t>(b.state)] += b.end - b.start;
        CHECK(g.before(L.tl.t1 + 100 * g.step_ns()) == all);
    }
}

TEST_CASE("the time axis steps by 1, 2 or 5 of a unit, at least 80 pixels apart, labelled in the step's unit", "[gui][axis]") {
    constexpr std::int64_t start = 12'088'412'000;  // a trace starting 12.088412 s into its clock
    struct Case {
        std::int64_t span_ns;
        std::int64_t step;
        const char* unit;
    };
    // 1310 pixels across (1400 minus the gutter)
    for (const Case c : {Case{9'065'010'000, 1'000'000'000, "s"}, Case{200'000'000, 20'000'000, "ms"}, Case{1'500'000, 100'000, "µs"},
                         Case{20'000, 2'000, "µs"}, Case{1'000, 100, "ns"}}) {
        INFO(c.span_ns);
        const std::int64_t t0 = start + 3'123'456'789, t1 = t0 + c.span_ns;
        const TimeAxis a = time_axis(t0, t1, start, 1310, true);
        CHECK(a.step_ns == c.step);
        CHECK(std::string(a.unit) == c.unit);
        REQUIRE(a.ticks.size() >= 2);
        CHECK(static_cast<double>(a.step_ns) * 1310 / static_cast<double>(c.span_ns) >= kMinTickPx);
        CHECK(static_cast<double>(a.step_ns) / 2.5 * 1310 / static_cast<double>(c.span_ns) < kMinTickPx);  // the next finer 1/2/5 step would crowd
        for (std::size_t i = 0; i < a.ticks.size(); ++i) {
            CHECK(a.ticks[i].ts >= t0);
            CHECK(a.ticks[i].ts <= t1);
            CHECK((a.ticks[i].ts - start) % a.step_ns == 0);  // round numbers since the start
            if (i) CHECK(a.ticks[i].ts - a.ticks[i - 1].ts == a.step_ns);
        }
    }
    // whole seconds from the start; finer steps from a round time, written in the gutter
    CHECK(time_axis(start, start + 9'065'010'000, start, 1310, true).ticks[1].label == "1 s");
    const TimeAxis ms = time_axis(start + 3'123'456'789, start + 3'323'456'789, start, 1310, true);
    CHECK(ms.base == "+3.000000 s");
    CHECK(ms.ticks[0].label == "+140 ms");  // 3.14 s after the start
    // on the trace clock the same view counts from the clock's zero
    const TimeAxis abs = time_axis(start + 3'123'456'789, start + 3'323'456'789, start, 1310, false);
    CHECK(abs.base == "15.000000 s");
    CHECK(abs.ticks[0].label == "+220 ms");  // 15.22 s
    CHECK(seconds_text(12'088'412'345, 1) == "12.088412345 s");
    CHECK(seconds_text(12'088'412'345, 1000) == "12.088412 s");
    CHECK(time_axis(5, 5, 0, 1310, true).ticks.empty());
}

TEST_CASE("the key of colours lists every state, each exit reason and vector the trace has, and the markers' colours", "[gui][legend]") {
    const auto& l = pveoi_on();
    const auto groups = legend(l.tl);
    std::set<std::uint32_t> colours;
    std::set<std::string> labels;
    for (const auto& g : groups)
        for (const auto& e : g.entries) colours.insert(e.colour), labels.insert(e.label);
    for (auto s : {VcpuState::Guest, VcpuState::Host, VcpuState::Halted}) CHECK(colours.count(state_color(s)));
    for (auto c : {kInjectionColor, kNestedInjectionColor, kRealEoiColor, kPvEoiColor, kPvIpiColor, kIcrIpiColor, kFindingColor, kCursorColor})
        CHECK(colours.count(c));
    for (auto c : kExitDensity) CHECK(colours.count(c));
    std::size_t reasons = 0;
    for (const auto& lane : l.tl.lanes)
        for (const auto& [reason, n] : lane.exits_by_reason) {
            INFO(reason);
            CHECK(labels.count(reason));
            ++reasons;
        }
    CHECK(reasons > 5);
    std::set<int> vectors;
    for (const auto& lane : l.tl.lanes)
        for (const auto& bar : lane.isr) vectors.insert(bar.vector);
    REQUIRE(vectors.count(0xec));
    for (int v : vectors) {
        char name[8];
        std::snprintf(name, sizeof name, "0x%02x", v);
        CHECK(labels.count(name));
        CHECK(colours.count(vector_color(v)));
    }
}

// The exit-reason ticks are told apart by colour alone: over every sample (and a trace
// of every sample at once, the most reasons), the least CIE76 ΔE between two reason
// colours the renderer uses is 10 or more — measured from the timeline's own table, which
// the ticks are painted from and the key lists. The hashed hue-circle colours before,
// dimmed to 4 levels a channel, gave pit.dat's EXIT_CPUID and EXIT_CR0_SEL_WRITE the
// very same colour (least ΔE 0.0); this palette's least over the samples is 39.6.
TEST_CASE("every two exit-reason colours in use are told apart: least ΔE >= 10", "[gui][palette][samples]") {
    double least = 1e9;
    for (const auto& name : dat_samples()) {
        INFO(name);
        const Trace t = load_trace(sample(name));
        const auto r = replay::replay(t);
        const Timeline tl = build_timeline(t, r, nullptr);
        std::vector<std::uint32_t> colours;
        std::set<std::uint32_t> painted;
        for (const auto& [reason, c] : tl.exit_colors) colours.push_back(c);
        for (const auto& lane : tl.lanes)
            for (const auto& x : lane.exits) painted.insert(x.color);
        CHECK(painted == std::set<std::uint32_t>(colours.begin(), colours.end()));  // the ticks use this table, nothing else
        REQUIRE(colours.size() >= 8);
        const double d = min_delta_e(colours);
        CHECK(d >= 10);
        for (const auto c : colours) CHECK(delta_e(c, kBackground) >= 25);  // and each shows on the lanes
        least = std::min(least, d);
    }
    // more reasons than any sample has: the palette itself keeps its distance
    const auto many = distinct_colours(40, {kBackground});
    CHECK(min_delta_e(many) >= 10);
    // ΔE itself: the textbook pairs
    CHECK(delta_e(0xff000000, 0xffffffff) == Approx(100).margin(0.01));
    CHECK(lab_of(0xff0000ff).l == Approx(53.24).margin(0.05));  // sRGB red
    CHECK(lab_of(0xff0000ff).a == Approx(80.09).margin(0.05));
    WARN("least ΔE between two exit-reason colours over the samples: " << least);
}

TEST_CASE("the inspector lists a set's vectors highest first", "[gui][inspector]") {
    replay::VectorSet v;
    CHECK(vector_list(v) == "none");
    v.set(0x22);
    v.set(0xec);
    v.set(0xff);
    CHECK(vector_list(v) == "0xff 0xec 0x22");
}

TEST_CASE("the tooltip names what lies under the pointer: band, exit, ISR bar, marker, serial line", "[gui][hover]") {
    LoadProgress progress;
    SessionSource src;
    src.path = sample("pveoi-on.dat");
    src.serial = sample("pveoi-on-serial.log");
    const auto s = load_session(src, progress);
    const std::int64_t a = 20'200'000'000, b = 20'400'000'000;
    const Layout L{1400, 352, a, b};
    const Filter all = Filter::all(s->tl);
    const int lane = 2;
    const Lane& l = s->tl.lanes[lane];
    // an exit: the nearest tick to the pointer, named with its reason, and its fields
    std::size_t checked = 0;
    for (const auto& tick : l.exits) {
        if (tick.ts < a || tick.ts > b) continue;
        const float x = L.x(tick.ts);
        // only ticks alone within the slack, so "nearest" is this one
        bool alone = true;
        for (const auto& other : l.exits)
            if (&other != &tick && std::abs(L.x(other.ts) - x) <= kHoverSlackPx) alone = false;
        if (!alone) continue;
        const auto lines = hover_lines(*s, all, nullptr, L, x, L.tick_y(lane) + 4);
        REQUIRE(lines.size() >= 2);
        Event e{};
        for (std::size_t i = s->trace.events.lower_bound_ts(TimestampNs(tick.ts)); s->trace.events.ts(i).value() == tick.ts; ++i)
            if (s->trace.events[i].kind == EventKind::Exit && s->trace.events[i].vcpu == l.vcpu) e = s->trace.events[i];
        INFO(lines[0]);
        CHECK(lines[0].rfind("vm0/vcpu2 exit " + exit_reason_key(e) + " at " + seconds_text(tick.ts, 1), 0) == 0);
        CHECK(lines[1].rfind("record " + std::to_string(e.record) + ": exit_reason=", 0) == 0);
        if (++checked == 20) break;
    }
    CHECK(checked == 20);
    // an ISR bar: the vector, its accept, injection and EOI
    const auto bar = std::find_if(l.isr.begin(), l.isr.end(), [&](const IsrBar& x) { return x.start > a && x.end < b && x.depth == 1 && L.x(x.end) - L.x(x.start) > 10; });
    REQUIRE(bar != l.isr.end());
    auto lines = hover_lines(*s, all, nullptr, L, (L.x(bar->start) + L.x(bar->end)) / 2, L.isr_y(lane, 1) + 4);
    REQUIRE(lines.size() >= 3);
    char v[8];
    std::snprintf(v, sizeof v, "0x%02x", bar->vector);
    CHECK(lines[0] == std::string("vm0/vcpu2 ") + v + " in service, nesting depth 1");
    CHECK(lines[2].rfind("injected " + seconds_text(bar->start, 1), 0) == 0);
    CHECK(lines.back().find("EOI " + seconds_text(bar->end, 1)) == 0);
    // the band: state and how long
    lines = hover_lines(*s, all, nullptr, L, (L.x(bar->start) + L.x(bar->end)) / 2, L.band_y(lane) + 5);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines[0].rfind("vm0/vcpu2 ", 0) == 0);
    // the gutter and empty space: nothing
    CHECK(hover_lines(*s, all, nullptr, L, 40, L.band_y(lane) + 5).empty());
    // a serial line, on the whole trace
    const Layout whole{1400, 352, s->tl.t0, s->tl.t1};
    REQUIRE_FALSE(s->tl.serial.empty());
    const auto& line = s->tl.serial.back();
    lines = hover_lines(*s, all, nullptr, whole, whole.x(line.ts), whole.serial_y(4) + 5);
    REQUIRE(lines.size() == 2);
    CHECK(lines[1] == line.text);
}

TEST_CASE("a lost-event gap runs from its CPU's previous event to the marker, and its tooltip says what was lost", "[gui][lost]") {
    LoadProgress progress;
    SessionSource src;
    src.path = sample("lost.dat");
    const auto s = load_session(src, progress);
    REQUIRE(s->tl.gaps.size() == s->trace.lost_markers());
    REQUIRE(s->tl.gaps.size() == 1);
    const LostGap& g = s->tl.gaps[0];
    CHECK(g.end == 88'756'701'596);  // the marker: trace-cmd's "CPU:1 [276 EVENTS DROPPED]"
    CHECK(g.cpu == 1);
    CHECK(g.lost == 276);
    // the start is CPU 1's last event before the marker
    std::int64_t last = -1;
    for (const auto& e : s->trace.events)
        if (e.kind != EventKind::Lost && e.cpu.value() == 1 && e.ts.value() < g.end) last = e.ts.value();
    CHECK(g.start == last);
    CHECK(g.end - g.start > 1'000'000);  // milliseconds without CPU 1's events
    const Layout L{1400, 352, g.start - 50'000'000, g.end + 50'000'000};
    const Filter all = Filter::all(s->tl);
    for (int lane = 0; lane < 4; ++lane) {  // every lane: every vCPU is unsynced from the start
        const auto lines = hover_lines(*s, all, nullptr, L, (L.x(g.start) + L.x(g.end)) / 2, L.lane_top(lane) + 40);
        REQUIRE(lines.size() == 3);
        CHECK(lines[0] == "lost events on host CPU 1: 276 events");
    }
    const auto groups = legend(s->tl);
    const auto& checks = groups.back().entries;
    CHECK(std::any_of(checks.begin(), checks.end(), [](const LegendEntry& e) { return e.colour == kLostColor; }));
    CHECK(std::any_of(checks.begin(), checks.end(), [](const LegendEntry& e) { return e.colour == kUnsyncedColor; }));
    char expect[64];
    std::snprintf(expect, sizeof expect, "276 in 1 gap, %.1f ms", static_cast<double>(g.end - g.start) / 1e6);
    CHECK(lost_events_row(s->tl).value == expect);
    CHECK(lost_events_row(pveoi_on().tl).value == "none");
}

TEST_CASE("a diff row's example in the compare tab is an event of what the row counts, on the row's vCPU", "[gui][compare]") {
    auto session = [](const char* name) {
        auto s = std::make_unique<Session>();
        s->title = name;
        s->trace = load_trace(sample(name));
        replay::ReplayOptions o;
        o.collect_details = true;
        s->replay = replay::replay(s->trace, o);
        return s;
    };
    const auto on = session("pveoi-on.dat"), off = session("pveoi-off.dat");
    // the event each side's example time lands on, of a kind
    auto event_at = [](const Session& s, std::int64_t ts, EventKind kind) -> std::optional<Event> {
        for (std::size_t i = 0; i < s.trace.events.size(); ++i)
            if (s.trace.events.ts(i).value() == ts && s.trace.events.kind(i) == kind) return s.trace.events[i];
        return std::nullopt;
    };
    std::set<std::string> seen;
    for (const auto& row : diff_rows(*on, *off)) {
        const Example ex = example_of(row, *on, *off, 0, 0);
        INFO(row.key);
        if (row.key.rfind("exits_per_guest_s[", 0) == 0 || row.key.rfind("host_us_per_exit[", 0) == 0) {
            const auto e = event_at(*on, ex.a_ts, EventKind::Exit);
            if (row.a == 0) continue;  // no such exit on A's side
            REQUIRE(e);
            CHECK(exit_reason_key(*e) == row.of);
            seen.insert("reason");
        } else if (row.vcpus && row.counts == replay::RunCount::Exits) {
            const auto e = event_at(*on, ex.a_ts, EventKind::Exit);
            REQUIRE(e);
            CHECK(e->vcpu.value() == row.vcpus->first.vcpu);
            seen.insert("vcpu");
        } else if (row.key == "pv_eoi_hit_rate") {
            // a PV EOI is traced as kvm_eoi, then kvm_pv_eoi (the lifecycle's EOI time is the first)
            CHECK((event_at(*on, ex.a_ts, EventKind::PvEoi) || event_at(*on, ex.a_ts, EventKind::Eoi)));
            CHECK(ex.b_ts == -1);  // PV EOI off: none
            seen.insert("pv");
        } else if (row.key.rfind("injections_per_guest_s[", 0) == 0) {
            const auto e = event_at(*on, ex.a_ts, EventKind::InjVirq);
            if (row.a == 0) continue;
            REQUIRE(e);
            CHECK(event_vector(*e) == row.vector);
            seen.insert("vector");
        } else if (row.counts == replay::RunCount::InjectToEoi && row.a > 0) {
            CHECK(event_at(*on, ex.a_ts, EventKind::InjVirq));  // the injection whose latency is nearest
            seen.insert("latency");
        }
    }
    CHECK(seen == std::set<std::string>{"reason", "vcpu", "pv", "vector", "latency"});
}
