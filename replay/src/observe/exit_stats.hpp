// Exits: how many, and how many per reason (named by exit_reason_key, as every layer
// names them).
#pragma once
#include <cstdint>
#include <unordered_map>

#include "../model/effect.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class ExitStats {
public:
    void exit(const Event& e);
    void finish(ReplayStats& st) const;

private:
    std::uint64_t exits_ = 0;
    // (has reason, isa, code) → count; named once at the end
    std::unordered_map<std::uint64_t, std::uint64_t> by_code_;
    std::uint64_t no_reason_ = 0;
};

}  // namespace irqflow::replay
