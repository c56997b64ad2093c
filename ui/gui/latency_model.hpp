// The latency tab's data: accept → inject and inject → EOI latencies of the shown
// lanes and vector, bucketed. No ImGui here.
#pragma once
#include <array>
#include <cstdint>

#include "irqflow/replay/replay.hpp"
#include "navigation_model.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

// Latencies in power-of-two buckets: bucket k counts samples in [2^k, 2^(k+1)) ns.
struct LatencyHistogram {
    static constexpr int kBuckets = 36;  // up to ~68 s
    std::array<std::uint64_t, kBuckets> count{};
    std::uint64_t samples = 0;
    int first = kBuckets, last = -1;  // non-empty bucket range
};
enum class LatencyStage { AcceptToInject, InjectToEoi };
LatencyHistogram latency_histogram(const replay::ReplayResult& r, const LaneLookup& lanes, const Filter& f, LatencyStage stage);

}  // namespace irqflow::gui
