// INJ-NOT-HIGHEST: of the pending vectors PPR lets through, the APIC delivers the
// highest (SDM: "the processor selects the highest-priority interrupt in IRR"); KVM
// mirrors that in kvm_apic_has_interrupt. Vectors accepted by other CPUs since this
// vCPU's last exit are forgiven: the tracepoints race KVM's choice.
#pragma once
#include "injection.hpp"

namespace irqflow::replay::rules {

class InjNotHighest final : public Check {
public:
    InjNotHighest(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!injection::judged(fx)) return;
        judged();
        if (fx.pending && fx.expected >= 0 && fx.expected != fx.vector && !injection::out_of_order(fx)) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        // fx.expected was pending and higher: it was not really pending for this vCPU (an accept
        // too many), or was delivered unseen, or this injection names the wrong vector
        const auto d = diagnose::history(c, fx.vcpu, fx.expected);
        k.extra(EventKind::ApicAcceptIrq, fx.expected, d.accepted(), 0.5,
                vec_str(fx.expected) + ", accepted at " + diagnose::rec(d.x.accept_record) + ", was higher and deliverable, yet " +
                    vec_str(fx.vector) + " was injected: that accept was not this vCPU's")
            .evidence = {d.x.accept_record, e.record};
        k.missing(EventKind::InjVirq, fx.expected, d.accepted(), here, 0.45,
                  "or " + vec_str(fx.expected) + " was delivered after its accept at " + diagnose::rec(d.x.accept_record) + " without a kvm_inj_virq")
            .evidence = {d.x.accept_record, e.record};
        k.wrong(EventKind::InjVirq, here, "vector", fx.vector, fx.expected, 0.35,
                vec_str(fx.expected) + " was the highest deliverable (IRR " + set_str(v.lapic.irr()) + ")")
            .evidence = {d.x.accept_record, e.record};
        report(c, e, v, "injection of " + vec_str(fx.expected) + " (highest deliverable in IRR " + set_str(v.lapic.irr()) + ")",
               "injection of " + vec_str(fx.vector), injection::accept_of(c, fx.vcpu, fx.vector))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
