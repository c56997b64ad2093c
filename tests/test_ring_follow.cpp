// The live check of a recording without a live KVM: a real capture's ring-buffer pages,
// as `record --check` would read them — each CPU's pages in rounds of 50 ms of trace
// time, every CPU read dry each round — through RingFollow and the live check, against
// the offline check of the same file (ui/README.md, "Live check").
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>

#include "helpers.hpp"
#include "pipeline.hpp"
#include "ring_pages.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

using Seen = std::tuple<std::int64_t, int, int, std::uint64_t, int, int, int>;  // ts, cpu, kind, record, vm, vcpu, tid
Seen seen(const Event& e) {
    return {e.ts.value(), e.cpu.value(), static_cast<int>(e.kind), e.record, e.vm.value(), e.vcpu.value(), e.tid.value()};
}

struct Live {
    std::vector<Seen> events;
    std::size_t out_before_end = 0;  // events handed over before the recording ended
    std::uint64_t late = 0;
    pipeline::Checked checked;
};

// The file's pages through RingFollow and the live check. Null when no recording makes
// such a file.
std::unique_ptr<Live> follow_pages(const std::string& path, std::int64_t round_ns, const FollowOptions& options) {
    const auto pages = RingPages::load(path);
    if (!pages) return nullptr;
    const auto ring = pages->follower(options);
    auto live = std::make_unique<Live>();
    const pipeline::LiveWatch watch;
    pipeline::LiveOptions lo;
    lo.follow = options;
    pipeline::LiveCheck check(ring->trace(), {}, watch, lo);
    LiveHandlers h = check.handlers();
    const auto event = h.event;
    h.event = [&](const Event& e) {
        live->events.push_back(seen(e));
        event(e);
    };
    pages->feed(*ring, h, round_ns, [&] { check.tick(ring->progress()); });
    live->out_before_end = live->events.size();
    ring->end(h);
    live->late = ring->late_events();
    live->checked = check.finish();
    return live;
}

// A window bounded by its count alone (16384 events, an hour of trace): the whole boot of
// a sample's VM fits in it, so the live attribution has everything the two-pass one has.
FollowOptions counted_window() {
    FollowOptions o;
    o.hold = std::chrono::hours(1);
    return o;
}
bool whole_window(const FollowOptions& o) { return o.hold == counted_window().hold; }

}  // namespace

TEST_CASE("a recording's pages checked live give the offline check's events and findings, on every sample", "[follow][record]") {
    // A window of 16384 events whatever their time; the default one (200 ms of trace
    // time); and one of 64 events: what a live recording's look-ahead amounts to when the
    // guest is slow (a boot's INIT reaches an AP seconds before the AP's thread first
    // runs, far more than the 200 ms the window holds). The window is measured in trace
    // time, so each variant gives the same result however fast this test runs.
    FollowOptions tiny;
    tiny.lookahead_events = 64;
    const auto [options, label] = GENERATE_COPY(std::pair{counted_window(), "16384-event look-ahead"}, std::pair{FollowOptions{}, "default look-ahead"},
                                                std::pair{tiny, "64-event look-ahead"});
    INFO(label);
    int followed = 0;
    for (const auto& name : dat_samples()) {
        INFO(name);
        const std::string dat = sample(name);
        std::vector<Seen> offline;
        pipeline::Watch w;
        const EventSink sink = [&](const Event& e) { offline.push_back(seen(e)); };
        w.event = sink;
        const pipeline::Checked c = pipeline::check({dat, "", {}}, {}, pipeline::Hold::AsNeeded, w);
        // A drop's lost events may lie back to its CPU's previous event, which the replay
        // must not have taken yet when the drop is seen: 64 events of look-ahead do not
        // reach that far on captures that lose events (lossy, lost, pvspin). A live
        // recording's window is 200 ms, and what a ring buffer overwrote lies after that
        // CPU's previous read round (ui/README.md, "Live check").
        if (options.lookahead_events < FollowOptions{}.lookahead_events && c.result.stats.gaps > 0) continue;
        const auto live = follow_pages(dat, 50000000, options);
        if (!live) {  // a multi-buffer file, or one whose times an option adjusts: no recording makes one
            // the two such samples (a -B instance; -C tsc2nsec): the others must be followed
            CHECK((name == "instance.dat" || name == "hostguest.dat"));
            continue;
        }
        ++followed;
        REQUIRE(live->events.size() == offline.size());
        // The order and numbering always; the attribution too when the window holds the
        // boot. With 200 ms or 64 events a thread's first events (before its vCPU or VM
        // is known) stay unattributed — which changes no finding and no statistic below.
        const bool whole = whole_window(options);
        const auto same = [whole](const Seen& x, const Seen& y) {
            return whole ? x == y : std::get<0>(x) == std::get<0>(y) && std::get<1>(x) == std::get<1>(y) && std::get<2>(x) == std::get<2>(y) &&
                                        std::get<3>(x) == std::get<3>(y);
        };
        const auto diff = std::mismatch(live->events.begin(), live->events.end(), offline.begin(), same);
        if (diff.first != live->events.end()) {
            const auto& [ts, cpu, kind, record, vm, vcpu, tid] = *diff.first;
            const auto& [ts2, cpu2, kind2, record2, vm2, vcpu2, tid2] = *diff.second;
            FAIL_CHECK("first difference at event " << (diff.first - live->events.begin()) << ": live record " << record << " vm" << vm
                       << "/vcpu" << vcpu << " tid " << tid << ", offline record " << record2 << " vm" << vm2 << "/vcpu" << vcpu2);
        }
        CHECK(live->late == 0);
        // an idle CPU held nothing back: before the end, all went out but the look-ahead
        // window and what the last round's in-flight millisecond holds (measured: at most
        // 50 events)
        CHECK(offline.size() - live->out_before_end <= options.lookahead_events + 256);
        const auto& a = live->checked.result;
        const auto& b = c.result;
        REQUIRE(a.findings.size() == b.findings.size());
        for (std::size_t i = 0; i < a.findings.size(); ++i) {
            CHECK(a.findings[i].rule == b.findings[i].rule);
            CHECK(a.findings[i].record == b.findings[i].record);
            CHECK(a.findings[i].ts == b.findings[i].ts);
            CHECK(a.findings[i].vcpu == b.findings[i].vcpu);
        }
        CHECK(a.stats.injections_checked == b.stats.injections_checked);
        CHECK(a.stats.eois_checked == b.stats.eois_checked);
        CHECK(a.stats.exits == b.stats.exits);
        CHECK(a.stats.gaps == b.stats.gaps);
    }
    CHECK(followed >= 1);
}
