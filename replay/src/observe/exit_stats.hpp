// Exits: how many, and how many per reason (named by exit_reason_key, as every layer
// names them).
#pragma once
#include <array>
#include <cstdint>
#include <unordered_map>

#include "../model/effect.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class ExitStats {
public:
    void exit(const Event& e) {
        ++exits_;
        if (!e.has(slot::exit_reason)) {
            ++no_reason_;
            return;
        }
        const auto code = e.f[slot::exit_reason];
        const auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
        if (static_cast<std::uint64_t>(code) < kDirect && (isa == kIsaVmx || isa == kIsaSvm))
            ++direct_[isa == kIsaSvm][static_cast<std::size_t>(code)];
        else
            count_other(isa, code);
    }
    void finish(ReplayStats& st) const;

private:
    // Counts by (isa, code), named once at the end: an array for the codes kernels use
    // (VMX below 0x100 in bits 15:0 — with bit 31 it goes to the map —, SVM up to 0x4ff),
    // a map for anything else.
    static constexpr std::size_t kDirect = 0x500;
    std::uint64_t exits_ = 0;
    std::array<std::array<std::uint64_t, kDirect>, 2> direct_{};  // [VMX, SVM]
    std::unordered_map<std::uint64_t, std::uint64_t> other_;      // (isa << 32 | code)
    std::uint64_t no_reason_ = 0;
    [[gnu::noinline]] void count_other(std::int64_t isa, std::int64_t code);
};

}  // namespace irqflow::replay
