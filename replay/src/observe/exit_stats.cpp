#include "exit_stats.hpp"

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay {

void ExitStats::exit(const Event& e) {
    ++exits_;
    const auto code = e.get(slot::exit_reason);
    if (!code) {
        ++no_reason_;
        return;
    }
    ++by_code_[(static_cast<std::uint64_t>(e.get(slot::exit_isa).value_or(kIsaVmx)) << 32) | static_cast<std::uint32_t>(*code)];
}

void ExitStats::finish(ReplayStats& st) const {
    st.exits = exits_;
    for (const auto& [key, n] : by_code_)
        st.exits_by_reason[exit_reason_key(static_cast<std::int64_t>(key & 0xffffffff), static_cast<std::int64_t>(key >> 32))] += n;
    if (no_reason_) st.exits_by_reason[exit_reason_key(std::nullopt, kIsaVmx)] += no_reason_;
}

}  // namespace irqflow::replay
