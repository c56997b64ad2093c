// Decoding of packed kernel words into normalized slots, for the trace.dat record decoder.
#pragma once
#include <cstdint>

#include "irqflow/capture/event.hpp"

namespace irqflow {

// kvm_apic_ipi: icr_low → vec, dm, dest_mode, level, tm, shorthand.
// kvm_ioapic_set_irq: redirection entry e → dst, vec, dm, dest_mode, tm, masked.
void decode_packed(Event& e, std::uint64_t word);

}  // namespace irqflow
