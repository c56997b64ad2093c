// INJ-REINJECT-NOT-IN-SERVICE: a re-injection repeats a delivery that an exit cut short
// (KVM's __kvm_queue_interrupt with reinject, from exit_int_info / IDT-vectoring info),
// so the vector was injected before and is still in service — unless it was the
// 8259's ExtINT, which never enters ISR.
#pragma once
#include "../diagnose/explain.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class InjReinjectNotInService final : public Check {
public:
    InjReinjectNotInService(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::InjVirq}); !s.empty()) return s;
        return "no re-injection (kvm_inj_virq … [reinjected]) came while its vCPU's APIC state was known";
    }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.outcome != Outcome::Reinject || !fx.known) return;
        judged();
        const auto& v = c.model.vcpu(fx.vcpu);
        if (!v.lapic.isr().test(fx.vector) && fx.vector != v.last_extint_vector) fire(e, fx, c, v);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v) const {
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        const auto h = diagnose::history(c, fx.vcpu, fx.vector);
        k.missing(EventKind::InjVirq, fx.vector, h.ever_accepted() ? h.accepted() : diagnose::last_entry(v), here, 0.6,
                  "a re-injection repeats a delivery already made, but no injection of " + vec_str(fx.vector) + " since its accept is in the trace")
            .evidence = {h.x.accept_record, e.record};
        k.wrong(EventKind::InjVirq, here, "reinjected", 1, 0, 0.4, vec_str(fx.vector) + " was not in service: a first delivery, not a re-injection")
            .evidence = {e.record};
        report(c, e, v, "re-injection of a vector in service " + set_str(v.lapic.isr()), "re-injection of " + vec_str(fx.vector)).diagnosis =
            k.pick();
    }
};

}  // namespace irqflow::replay::rules
