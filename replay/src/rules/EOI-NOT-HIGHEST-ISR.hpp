// EOI-NOT-HIGHEST-ISR: an EOI always retires the highest-priority vector in service
// (SDM: "the processor clears the highest-priority bit in ISR"), and kvm_eoi names the
// vector KVM cleared. Another vector means the model's ISR holds one the guest never
// got (a lost EOI before) or the trace shows an EOI of something never injected.
#pragma once
#include "../diagnose/explain.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class EoiNotHighestIsr final : public Check {
public:
    EoiNotHighestIsr(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::Eoi}, {}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::Eoi}); !s.empty()) return s;
        return "no EOI came while its vCPU's APIC state was known";
    }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.outcome != Outcome::Eoi || !fx.known) return;
        judged();
        const auto& v = c.model.vcpu(fx.vcpu);
        if (v.lapic.isr_top() != fx.vector) fire(e, fx, c, v);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v) const {
        const int top = v.lapic.isr_top();
        Chain chain;
        if (top >= 0)
            if (const auto rec = c.evidence.of(fx.vcpu, top).inject_record) chain.push_back({rec, "injected " + vec_str(top)});
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        diagnose::eoi_of_other(k, c, fx.vcpu, fx.vector, top, here);
        report(c, e, v, "EOI of " + vec_str(top) + " (ISR " + set_str(v.lapic.isr()) + ")", "EOI of " + vec_str(fx.vector), std::move(chain))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
