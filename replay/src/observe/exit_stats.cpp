#include "exit_stats.hpp"

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay {

void ExitStats::count_other(std::int64_t isa, std::int64_t code) {
    ++other_[(static_cast<std::uint64_t>(isa) << 32) | static_cast<std::uint32_t>(code)];
}

void ExitStats::finish(ReplayStats& st) const {
    st.exits = exits_;
    for (std::size_t svm = 0; svm < 2; ++svm)
        for (std::size_t code = 0; code < kDirect; ++code)
            if (const auto n = direct_[svm][code])
                st.exits_by_reason[exit_reason_key(static_cast<std::int64_t>(code), svm ? kIsaSvm : kIsaVmx)] += n;
    for (const auto& [key, n] : other_)
        st.exits_by_reason[exit_reason_key(static_cast<std::int64_t>(key & 0xffffffff), static_cast<std::int64_t>(key >> 32))] += n;
    if (no_reason_) st.exits_by_reason[exit_reason_key(std::nullopt, kIsaVmx)] += no_reason_;
}

}  // namespace irqflow::replay
