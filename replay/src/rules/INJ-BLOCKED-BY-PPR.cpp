// INJ-BLOCKED-BY-PPR: an interrupt is delivered only if its priority class is above
// PPR, the higher of TPR and the class of the highest vector in service (SDM
// "Interrupt, Task, and Processor Priority"). An injection while PPR blocks every
// pending vector means a missed TPR write (a vector in service that blocks it is
// ISR-ORDER's finding).
#include "injection.hpp"

namespace irqflow::replay {
namespace {

class InjBlockedByPpr final : public Check {
public:
    InjBlockedByPpr(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::InjVirq}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!injection::judged(fx)) return;
        judged();
        if (!fx.pending || fx.deliverable >= 0 || injection::out_of_order(fx)) return;
        const auto& v = c.model.vcpu(fx.vcpu);
        report(c, e, v, "no injection: PPR " + vec_str(v.lapic.ppr()) + " blocks IRR " + set_str(v.lapic.irr()),
               "injection of " + vec_str(fx.vector), injection::accept_of(c, fx.vcpu, fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(InjBlockedByPpr, irqflow::replay::InjBlockedByPpr)
