// INJ-NOT-HIGHEST: of the pending vectors PPR lets through, the APIC delivers the
// highest (SDM: "the processor selects the highest-priority interrupt in IRR"); KVM
// mirrors that in kvm_apic_has_interrupt. Vectors accepted by other CPUs since this
// vCPU's last exit are forgiven: the tracepoints race KVM's choice.
#include "injection.hpp"

namespace irqflow::replay {
namespace {

class InjNotHighest final : public Check {
public:
    InjNotHighest(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::InjVirq}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!injection::judged(fx)) return;
        judged();
        if (!fx.pending || fx.expected < 0 || fx.expected == fx.vector || injection::out_of_order(fx)) return;
        const auto& v = c.model.vcpu(fx.vcpu);
        report(c, e, v, "injection of " + vec_str(fx.expected) + " (highest deliverable in IRR " + set_str(v.lapic.irr()) + ")",
               "injection of " + vec_str(fx.vector), injection::accept_of(c, fx.vcpu, fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(InjNotHighest, irqflow::replay::InjNotHighest)
