// A real capture repeated until the stream holds `target` events, timestamps and record
// indices shifted so it stays ordered (benchmarks need big streams; captures are small).
#pragma once
#include "irqflow/capture/trace.hpp"

namespace irqflow::bench {

inline Trace repeat_trace(const Trace& base, std::size_t target) {
    Trace big = base;
    const std::int64_t span = base.events.back().ts.value() - base.events.front().ts.value() + 1000;
    const std::vector<Event> one = base.events.to_vector();
    for (int rep = 1; big.events.size() < target; ++rep)
        for (auto e : one) {
            e.ts = TimestampNs(e.ts.value() + rep * span);
            e.record += static_cast<std::uint64_t>(rep) * base.events.size();
            big.events.push_back(e);
        }
    return big;
}

}  // namespace irqflow::bench
