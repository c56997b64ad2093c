// EOI-ISR-NOT-EMPTY: kvm_eoi reports vector -1 when KVM found nothing in service
// (apic_find_highest_isr returned -1). If the model still holds vectors in ISR, one of
// them was EOI'd behind the trace's back or never really delivered.
#pragma once
#include "../diagnose/explain.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class EoiIsrNotEmpty final : public Check {
public:
    EoiIsrNotEmpty(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::Eoi}, {}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::Eoi}); !s.empty()) return s;
        return "no kvm_eoi of nothing in service (vector -1) came while its vCPU's APIC state was known";
    }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (fx.outcome != Outcome::EoiNothing || !fx.known) return;
        judged();
        const auto& v = c.model.vcpu(fx.vcpu);
        if (!v.lapic.isr().empty()) fire(e, fx, c, v);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c, const VcpuModel& v) const {
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        diagnose::stale_in_service(k, c, fx.vcpu, v.lapic.isr().highest(), here,
                                   "KVM found nothing in service at the EOI at " + diagnose::rec(e.record));
        report(c, e, v, "EOI of " + vec_str(v.lapic.isr().highest()) + " (ISR " + set_str(v.lapic.isr()) + ")", "EOI with nothing in service")
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
