// What the injection rules (INJ-*, ISR-ORDER, VECTOR-ILLEGAL) share: which injections
// they judge, the vector KVM should have chosen, and the accept they cite.
#pragma once
#include "../diagnose/explain.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::injection {

// A kvm_inj_virq the model takes from IRR into ISR (not a soft interrupt, a
// re-injection or the 8259's ExtINT) on a vCPU whose state is known, of a legal vector
// (Effect::pending, ::deliverable and ::expected hold the model's view of the choice).
inline bool judged(const Effect& fx) {
    return (fx.outcome == Outcome::Injected || fx.outcome == Outcome::InjectedAutoEoi) && fx.checkable &&
           fx.vector >= apic::kFirstLegalVector;
}

// A nested injection whose class is not above the vector in service: ISR-ORDER's case,
// which explains the other injection rules' (PPR blocks it, another vector was higher).
inline bool out_of_order(const Effect& fx) {
    return fx.in_service >= 0 && priority_class(fx.vector) <= priority_class(fx.in_service);
}

// Why an injection rule judged nothing.
inline std::string not_judged(const KindCounts& seen) {
    if (auto s = none_of(seen, {EventKind::InjVirq}); !s.empty()) return s;
    if (!seen[static_cast<std::size_t>(EventKind::Entry)] && !seen[static_cast<std::size_t>(EventKind::Exit)])
        return "no kvm_entry or kvm_exit in the input: no vCPU's APIC state is known, so no injection was judged";
    return "no injection came while its vCPU's APIC state was known (known from the VM's start, an INIT or a halt "
           "that blocked; not while APICv/AVIC delivers)";
}

// The accept that made the vector pending, when the trace has it.
inline Chain accept_of(const RuleContext& c, VcpuSlot s, int vector) {
    const auto& x = c.evidence.of(s, vector);
    if (!x.accept_record) return {};
    return {{x.accept_record, "accepted " + vec_str(vector)}};
}

}  // namespace irqflow::replay::injection
