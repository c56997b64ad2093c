// The last events of the stream, kept small for the checks that look back a few events
// (a kvm_pv_eoi and the kvm_eoi before it on its thread) without holding the trace.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "irqflow/capture/event.hpp"

namespace irqflow::replay {

class RecentEvents {
public:
    static constexpr std::size_t kSize = 4096;  // a power of two

    struct Entry {
        Tid tid{-1};
        EventKind kind = EventKind::Other;
        std::int16_t eoi_vector = -1;  // kvm_eoi's vector (-2: a value no vector has, from a corrupt record)
    };

    // The kind is the caller's compile-time constant (each kind's handler pushes its own
    // events), so an event costs one store of a word (thread, kind, vector) and no test
    // of its kind.
    template <EventKind K>
    [[gnu::always_inline]] void push(const Event& e) {
        std::int16_t vector = -1;
        if constexpr (K == EventKind::Eoi) {
            const std::int64_t v = e.f[slot::eoi_vector];
            vector = v >= -1 && v <= INT16_MAX ? static_cast<std::int16_t>(v) : std::int16_t{-2};
        }
        ring_[count_ & (kSize - 1)] = word(e.tid, K, vector);
        ++count_;
    }
    // How many entries back() can reach.
    std::size_t available() const { return count_ < kSize ? static_cast<std::size_t>(count_) : kSize; }
    // The k-th event before the current one (k = 1: the one right before), k ≤ available().
    Entry back(std::size_t k) const {
        const std::uint64_t w = ring_[(count_ - k) & (kSize - 1)];
        return {Tid(static_cast<std::int32_t>(static_cast<std::uint32_t>(w))), static_cast<EventKind>((w >> 32) & 0xff),
                static_cast<std::int16_t>(static_cast<std::uint16_t>(w >> 48))};
    }

private:
    static constexpr std::uint64_t word(Tid tid, EventKind k, std::int16_t vector) {
        return static_cast<std::uint32_t>(tid.value()) | std::uint64_t{static_cast<std::uint8_t>(k)} << 32 |
               std::uint64_t{static_cast<std::uint16_t>(vector)} << 48;
    }
    std::array<std::uint64_t, kSize> ring_ = [] {
        std::array<std::uint64_t, kSize> r{};
        r.fill(word(Tid(-1), EventKind::Other, -1));
        return r;
    }();
    std::uint64_t count_ = 0;
};

}  // namespace irqflow::replay
