#include "event_decode.hpp"

namespace irqflow {

void decode_packed(Event& e, std::uint64_t w) {
    // Both layouts follow the x86 APIC: vector 7:0, delivery mode 10:8, destination
    // mode 11, trigger mode 15; the ICR adds level 14 and shorthand 19:18, the IOAPIC
    // entry adds mask 16 and the destination in 63:56.
    const auto bits = [w](int lo, int n) { return static_cast<std::int64_t>((w >> lo) & ((1ULL << n) - 1)); };
    if (e.kind == EventKind::ApicIpi) {
        e.set(slot::ipi_vec, bits(0, 8));
        e.set(slot::ipi_dm, bits(8, 3));
        e.set(slot::ipi_dest_mode, bits(11, 1));
        e.set(slot::ipi_level, bits(14, 1));
        e.set(slot::ipi_tm, bits(15, 1));
        e.set(slot::ipi_shorthand, bits(18, 2));
    } else if (e.kind == EventKind::IoapicSetIrq) {
        // slots: pin, dst, vec, dm, dest_mode, tm, masked, coalesced (event_schema.cpp)
        e.set(2, bits(0, 8));
        e.set(3, bits(8, 3));
        e.set(4, bits(11, 1));
        e.set(5, bits(15, 1));
        e.set(6, bits(16, 1));
        e.set(1, bits(56, 8));
    }
}

}  // namespace irqflow
