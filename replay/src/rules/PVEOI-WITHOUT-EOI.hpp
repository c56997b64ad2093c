// PVEOI-WITHOUT-EOI: KVM handles a PV EOI (the guest cleared the flag instead of
// writing the EOI register) at the next exit by doing the EOI itself: kvm_eoi, then
// kvm_pv_eoi of the same vector (apic_sync_pv_eoi_from_guest), back to back on the vCPU's
// thread. A kvm_pv_eoi without that kvm_eoi right before it means the EOI was lost or
// the pair is broken.
#pragma once
#include "finding_text.hpp"
#include "../diagnose/explain.hpp"
#include "pv_eoi.hpp"

namespace irqflow::replay::rules {

class PvEoiWithoutEoi final : public pv_eoi::Check {
public:
    PvEoiWithoutEoi(RuleId id, const Model&) : pv_eoi::Check(id) {}
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!fx.checkable) return;
        judged();
        if (!pv_eoi::follows_its_eoi(e, fx.vector, c)) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        k.missing(EventKind::Eoi, fx.vector, {v.last_own_record, TimestampNs(v.last_own_ts)}, here, 0.9,
                  "KVM traces a PV EOI as kvm_eoi then kvm_pv_eoi of the same vector on the vCPU's thread; the kvm_eoi of " +
                      vec_str(fx.vector) + " is not there")
            .evidence = {v.last_own_record, e.record};
        report(c, e, v, "kvm_eoi of " + vec_str(fx.vector) + " right before", "kvm_pv_eoi of " + vec_str(fx.vector)).diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
