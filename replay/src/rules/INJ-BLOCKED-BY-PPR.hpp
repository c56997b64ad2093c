// INJ-BLOCKED-BY-PPR: an interrupt is delivered only if its priority class is above
// PPR, the higher of TPR and the class of the highest vector in service (SDM
// "Interrupt, Task, and Processor Priority"). An injection while PPR blocks every
// pending vector means a missed TPR write (a vector in service that blocks it is
// ISR-ORDER's finding).
#pragma once
#include "injection.hpp"

namespace irqflow::replay::rules {

class InjBlockedByPpr final : public Check {
public:
    InjBlockedByPpr(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!injection::judged(fx)) return;
        judged();
        if (fx.pending && fx.deliverable < 0 && !injection::out_of_order(fx)) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        // TPR blocks it (a vector in service blocking it is ISR-ORDER's): the guest lowered TPR
        // unseen, or this injection should not be
        k.missing(EventKind::Msr, -1, diagnose::last_entry(v), here, 0.5,
                  "TPR " + vec_str(v.lapic.tpr()) + " blocks " + vec_str(fx.vector) + ": a write lowering TPR (x2APIC MSR 0x808, or CR8) is not in the trace")
            .evidence = {v.last_entry_record, e.record};
        k.extra(EventKind::InjVirq, fx.vector, here, 0.4, "or KVM injected " + vec_str(fx.vector) + " while TPR " + vec_str(v.lapic.tpr()) + " blocked it")
            .evidence = {e.record};
        report(c, e, v, "no injection: PPR " + vec_str(v.lapic.ppr()) + " blocks IRR " + set_str(v.lapic.irr()),
               "injection of " + vec_str(fx.vector), injection::accept_of(c, fx.vcpu, fx.vector))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
