// What the window shows while a trace file loads (ui/README.md, "Opening big traces"):
// per vCPU thread, the time spent in guest, host and halted and the number of exits in
// each of kBuckets time buckets, built from the load's first pass as it reads. When the
// trace outgrows the buckets, neighbours merge and the width doubles, so the memory stays
// the same whatever the length. The first frame needs only this. No ImGui here.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/event.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

struct OverviewBucket {
    std::array<std::int64_t, 3> time{};  // ns per VcpuState
    std::uint32_t exits = 0;
};

struct OverviewLane {
    Tid tid;
    std::int32_t vcpu_id = -1;  // from kvm_entry / kvm_exit (pass-one events are not attributed to VMs yet)
    std::vector<OverviewBucket> buckets;
};

struct Overview {
    static constexpr std::size_t kBuckets = 4096;
    std::int64_t t0 = 0, bucket_ns = 1000, last_ts = 0;
    std::uint64_t events = 0;
    std::vector<OverviewLane> lanes;  // by vCPU id in a snapshot
    std::size_t bucket(std::int64_t ts) const { return static_cast<std::size_t>((ts - t0) / bucket_ns); }
};

// Fed on the loading thread; snapshots read on the window's.
class OverviewBuilder {
public:
    void add(const Event& e);
    // The overview so far (null before the first event). Published every kPublishEvery
    // events and by finish(); a copy, so the window never waits for the loader.
    std::shared_ptr<const Overview> snapshot() const;
    void finish();

private:
    static constexpr std::uint64_t kPublishEvery = 1 << 18;
    struct Thread {
        std::size_t lane;
        VcpuState state;
        std::int64_t since;
        bool known = false;  // state known (after its first entry or exit)
    };
    Thread& thread(const Event& e, std::int32_t vcpu_id);
    void cover(std::int64_t ts);  // widen the buckets until ts fits
    static void add_span(Overview& o, std::size_t lane, VcpuState s, std::int64_t from, std::int64_t to);
    void publish();

    Overview o_;
    std::unordered_map<std::int32_t, Thread> threads_;  // by tid
    mutable std::mutex m_;
    std::shared_ptr<const Overview> published_;
};

}  // namespace irqflow::gui
