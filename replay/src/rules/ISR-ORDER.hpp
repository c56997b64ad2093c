// ISR-ORDER: a nested interrupt must be of a higher priority class than every vector in
// service — PPR holds the class of the highest one and blocks the rest — so ISR fills in
// strictly increasing classes. A nested injection of an equal or lower class means the
// EOI of the outer vector was missed (or never happened). Checked before PPR and the
// highest-vector rule: the vector in service is the better explanation, and the
// evidence names its injection.
#pragma once
#include "injection.hpp"

namespace irqflow::replay::rules {

class IsrOrder final : public Check {
public:
    IsrOrder(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override { return injection::not_judged(seen); }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (!injection::judged(fx)) return;
        judged();
        if (fx.pending && injection::out_of_order(fx)) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        Chain chain = injection::accept_of(c, fx.vcpu, fx.vector);
        if (const auto rec = c.evidence.of(fx.vcpu, fx.in_service).inject_record) chain.push_back({rec, "injected " + vec_str(fx.in_service)});
        const diagnose::At here{e.record, e.ts};
        diagnose::Candidates k(v.vm, v.id);
        diagnose::stale_in_service(k, c, fx.vcpu, fx.in_service, here,
                                   vec_str(fx.vector) + " (a class not above it) was injected at " + diagnose::rec(e.record));
        report(c, e, v, "a vector of a class above " + vec_str(fx.in_service) + " (ISR " + set_str(v.lapic.isr()) + ")",
               "nested injection of " + vec_str(fx.vector), std::move(chain))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
