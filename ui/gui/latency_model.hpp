// The latency tab's data: accept → inject and inject → EOI latencies of the shown
// lanes and vector, bucketed. No ImGui here.
#pragma once
#include <array>
#include <cstdint>
#include <string>

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
// Bucket k's lower edge, 2^k ns, in the unit that keeps it short ("512 ns", "4 µs",
// "1 ms"; the unit's value rounded down, as the bucket holds what is at least 2^k ns).
std::string bucket_edge_text(int k);

// Every `step`-th bar gets its edge labelled, so labels `label_px` wide (and a gap) never
// overlap on bars `bar_px` wide.
int label_step(float bar_px, float label_px);

// A bar's colour, and the one under the mouse.
inline constexpr std::uint32_t kLatencyBarColor = 0xff2db4e6, kLatencyBarHovered = 0xff80e0ff;

enum class LatencyStage { AcceptToInject, InjectToEoi };
LatencyHistogram latency_histogram(const replay::ReplayResult& r, const LaneLookup& lanes, const Filter& f, LatencyStage stage);

}  // namespace irqflow::gui
