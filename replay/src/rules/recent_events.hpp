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
    // events), so an event costs three stores and no test of its kind.
    template <EventKind K>
    [[gnu::always_inline]] void push(const Event& e) {
        Entry& r = ring_[count_ & (kSize - 1)];
        r.tid = e.tid;
        r.kind = K;
        if constexpr (K == EventKind::Eoi) {
            const std::int64_t v = e.f[slot::eoi_vector];
            r.eoi_vector = v >= -1 && v <= INT16_MAX ? static_cast<std::int16_t>(v) : std::int16_t{-2};
        } else {
            r.eoi_vector = -1;
        }
        ++count_;
    }
    // How many entries back() can reach.
    std::size_t available() const { return count_ < kSize ? static_cast<std::size_t>(count_) : kSize; }
    // The k-th event before the current one (k = 1: the one right before), k ≤ available().
    const Entry& back(std::size_t k) const { return ring_[(count_ - k) & (kSize - 1)]; }

private:
    std::array<Entry, kSize> ring_{};
    std::uint64_t count_ = 0;
};

}  // namespace irqflow::replay
