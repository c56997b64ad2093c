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
        e.set(field_slot(EventKind::IoapicSetIrq, "vec"), bits(0, 8));
        e.set(field_slot(EventKind::IoapicSetIrq, "dm"), bits(8, 3));
        e.set(field_slot(EventKind::IoapicSetIrq, "dest_mode"), bits(11, 1));
        e.set(field_slot(EventKind::IoapicSetIrq, "tm"), bits(15, 1));
        e.set(field_slot(EventKind::IoapicSetIrq, "masked"), bits(16, 1));
        e.set(field_slot(EventKind::IoapicSetIrq, "dst"), bits(56, 8));
    }
}

}  // namespace irqflow
