#include "latency_model.hpp"

#include <algorithm>
#include <bit>

namespace irqflow::gui {

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
