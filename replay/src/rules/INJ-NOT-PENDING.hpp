// INJ-NOT-PENDING: KVM injects only what the local APIC's IRR holds (kvm_cpu_get_interrupt
// → kvm_apic_has_interrupt), so an injected vector must have been accepted and not yet
// injected. Outside IRR it is either the 8259's ExtINT (recognised by the model) or a
// delivery the trace cannot explain: a lost accept, or an injection out of nothing.
#pragma once
#include "injection.hpp"

namespace irqflow::replay::rules {

class InjNotPending final : public Check {
public:
    InjNotPending(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!injection::judged(fx)) return;
        judged();
        if (!fx.pending) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        diagnose::not_pending(k, c, fx.vcpu, fx.vector, fx.deliverable, here);
        report(c, e, v, "injection of a pending vector: IRR " + set_str(v.lapic.irr()), "injection of " + vec_str(fx.vector),
               injection::accept_of(c, fx.vcpu, fx.vector))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
