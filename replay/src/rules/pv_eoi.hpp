// What the PV EOI rules share: whether a kvm_pv_eoi comes right after its kvm_eoi.
#pragma once
#include "check.hpp"

namespace irqflow::replay::pv_eoi {

// KVM emits the pair from one function (apic_sync_pv_eoi_from_guest → kvm_lapic_set_eoi
// traces kvm_eoi, then kvm_pv_eoi), so the event before a kvm_pv_eoi on its thread is
// the kvm_eoi of the same vector; only other CPUs' events can come between. The scan
// back stops after kMaxLookBack events: further than any interleaving of a real trace.
inline bool follows_its_eoi(const Event& e, int vector, const RuleContext& c) {
    constexpr std::size_t kMaxLookBack = 4096;
    const Event* first = c.events.data();
    for (const Event* p = &e; p != first && static_cast<std::size_t>(&e - p) < kMaxLookBack;) {
        --p;
        if (p->tid != e.tid) continue;
        return p->kind == EventKind::Eoi && p->get(slot::eoi_vector) == vector;
    }
    return false;
}

}  // namespace irqflow::replay::pv_eoi
