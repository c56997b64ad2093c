#include "latency_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace irqflow::gui {

std::string bucket_edge_text(int k) {
    const std::uint64_t ns = std::uint64_t{1} << std::clamp(k, 0, 62);
    if (ns < 1'000) return std::to_string(ns) + " ns";
    if (ns < 1'000'000) return std::to_string(ns / 1'000) + " µs";
    if (ns < 1'000'000'000) return std::to_string(ns / 1'000'000) + " ms";
    return std::to_string(ns / 1'000'000'000) + " s";
}

int label_step(float bar_px, float label_px) {
    if (bar_px <= 0) return 1;
    return std::max(1, static_cast<int>(std::ceil((label_px + 6) / bar_px)));
}

LatencyHistogram latency_histogram(const replay::ReplayResult& r, const LaneLookup& lanes, const Filter& f, LatencyStage stage) {
    LatencyHistogram h;
    for (const auto& ir : r.interrupts) {
        if (!f.shows(lanes(ir.vm, ir.vcpu)) || !f.shows_vector(ir.vector)) continue;
        std::int64_t d = -1;
        if (stage == LatencyStage::AcceptToInject && ir.accept_ts && ir.inject_ts) d = ir.inject_ts - ir.accept_ts;
        if (stage == LatencyStage::InjectToEoi && ir.inject_ts && ir.eoi_ts) d = ir.eoi_ts - ir.inject_ts;
        if (d < 0) continue;
        const int k = std::min(LatencyHistogram::kBuckets - 1, d <= 0 ? 0 : static_cast<int>(std::bit_width(static_cast<std::uint64_t>(d))) - 1);
        ++h.count[static_cast<std::size_t>(k)];
        ++h.samples;
        h.first = std::min(h.first, k);
        h.last = std::max(h.last, k);
    }
    return h;
}

}  // namespace irqflow::gui
