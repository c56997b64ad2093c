// A percentile of latency samples as every view of them takes it: the replay's rank
// (replay/src/observe/latency_distribution.hpp: the sample at floor(q × n)), so `check`,
// `diff`, `trace-irq` and the GUI's selection give one number for one set of samples.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace irqflow::ui {

// `sorted`: ascending. 0 when empty.
inline std::int64_t percentile(const std::vector<std::int64_t>& sorted, double q) {
    if (sorted.empty()) return 0;
    return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * static_cast<double>(sorted.size())))];
}

}  // namespace irqflow::ui
