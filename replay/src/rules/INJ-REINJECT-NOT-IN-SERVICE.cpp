// INJ-REINJECT-NOT-IN-SERVICE: a re-injection repeats a delivery that an exit cut short
// (KVM's __kvm_queue_interrupt with reinject, from exit_int_info / IDT-vectoring info),
// so the vector was injected before and is still in service — unless it was the
// 8259's ExtINT, which never enters ISR.
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class InjReinjectNotInService final : public Check {
public:
    InjReinjectNotInService(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::InjVirq}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::InjVirq}); !s.empty()) return s;
        return "no re-injection (kvm_inj_virq … [reinjected]) came while its vCPU's APIC state was known";
    }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (fx.outcome != Outcome::Reinject || !fx.known) return;
        judged();
        const auto& v = c.model.vcpu(fx.vcpu);
        if (v.lapic.isr().test(fx.vector) || fx.vector == v.last_extint_vector) return;
        report(c, e, v, "re-injection of a vector in service " + set_str(v.lapic.isr()), "re-injection of " + vec_str(fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(InjReinjectNotInService, irqflow::replay::InjReinjectNotInService)
