// Exits: how many, and how many per reason (named by exit_reason_key, as every layer
// names them, through the ids every layer counts them by).
#pragma once
#include <cstdint>
#include <vector>

#include "../model/effect.hpp"
#include "irqflow/capture/exit_reason_ids.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class ExitStats {
public:
    void exit(const Event& e) {
        ++exits_;
        count_reason(by_reason_, reasons_.of(e));
    }
    void finish(ReplayStats& st) const {
        st.exits = exits_;
        for (const auto& [name, n] : reasons_.named(by_reason_)) st.exits_by_reason[name] += n;
    }

private:
    std::uint64_t exits_ = 0;
    ExitReasonIds reasons_;
    std::vector<std::uint64_t> by_reason_;  // by reason id
};

}  // namespace irqflow::replay
