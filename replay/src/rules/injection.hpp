// What the injection rules (INJ-*, ISR-ORDER, VECTOR-ILLEGAL) share: which injections
// they judge, the vector KVM should have chosen, and the accept they cite.
#pragma once
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::injection {

// A kvm_inj_virq the model takes from IRR into ISR (not a soft interrupt, a
// re-injection or the 8259's ExtINT) on a vCPU whose state is known.
inline bool judged(const Effect& fx, const RuleContext& c) {
    return (fx.outcome == Outcome::Injected || fx.outcome == Outcome::InjectedAutoEoi) && c.model.checkable(fx.vcpu);
}

// The vector KVM should have injected: the highest deliverable one — unless that one
// raced in from another CPU since the vCPU's last exit (KVM may have looked before it
// landed) and the injected vector is the highest deliverable without the racers.
inline int expected(const VcpuModel& v, int injected) {
    const int d = v.lapic.deliverable();
    if (d == injected || d < 0 || !v.racing.test(d)) return d;
    VectorSet without = v.lapic.irr().minus(v.racing);
    if (v.racing.test(injected)) without.set(injected);
    return apic_deliverable(without, v.lapic.ppr()) == injected ? injected : d;
}

// The accept that made the vector pending, when the trace has it.
inline Chain accept_of(const RuleContext& c, VcpuSlot s, int vector) {
    const auto& x = c.evidence.of(s, vector);
    if (!x.accept_record) return {};
    return {{x.accept_record, "accepted " + vec_str(vector)}};
}

}  // namespace irqflow::replay::injection
