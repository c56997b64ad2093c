#include "clock_skew.hpp"

#include <algorithm>

namespace irqflow::replay {

void ClockSkew::pair(std::int32_t cause_cpu, std::int32_t effect_cpu, std::int64_t delay_ns) {
    if (cause_cpu == effect_cpu || cause_cpu < 0 || effect_cpu < 0) return;
    ++pairs_;
    auto [it, added] = min_delay_.try_emplace({cause_cpu, effect_cpu}, delay_ns);
    if (!added) {
        if (delay_ns >= it->second) return;
        it->second = delay_ns;
    }
    // Only this CPU pair's bound changed; the bound over all pairs is the largest, so
    // recompute it over every pair seen both ways (a handful of CPUs: cheap, and rare
    // once the minima settle).
    bound_ = -1;
    for (const auto& [cpus, d] : min_delay_) {
        if (cpus.first > cpus.second) continue;
        const auto back = min_delay_.find({cpus.second, cpus.first});
        if (back != min_delay_.end()) bound_ = std::max(bound_, std::max(d, back->second));
    }
}

}  // namespace irqflow::replay
