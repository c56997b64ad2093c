// ISR-ORDER: a nested interrupt must be of a higher priority class than every vector in
// service — PPR holds the class of the highest one and blocks the rest — so ISR fills in
// strictly increasing classes. A nested injection of an equal or lower class means the
// EOI of the outer vector was missed.
#include "injection.hpp"

namespace irqflow::replay {
namespace {

class IsrOrder final : public Check {
public:
    IsrOrder(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::InjVirq}, {}, false}; }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!injection::judged(fx) || !fx.pending || fx.deliverable < 0 || fx.expected != fx.vector) return;
        const auto& v = c.model.vcpu(fx.vcpu);
        const int top = v.lapic.isr().highest();
        if (top < 0 || priority_class(fx.vector) > priority_class(top)) return;
        report(c, e, v, "a vector of a class above " + vec_str(top), "nested injection of " + vec_str(fx.vector),
               injection::accept_of(c, fx.vcpu, fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(IsrOrder, irqflow::replay::IsrOrder)
