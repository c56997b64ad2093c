// VECTOR-ILLEGAL: vectors 0-15 are reserved for exceptions; the APIC rejects them in
// fixed and lowest-priority delivery (SDM: "illegal vector" in ESR). An accept or an
// injection of one is a KVM or VMM bug.
#include "injection.hpp"

namespace irqflow::replay {
namespace {

class VectorIllegal final : public Check {
public:
    VectorIllegal(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::ApicAcceptIrq, EventKind::InjVirq}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq, EventKind::InjVirq}); !s.empty()) return s;
        return "no accept or injection came while its vCPU's APIC state was known";
    }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (e.kind == EventKind::ApicAcceptIrq) {
            if (fx.known && fx.vcpu != kNoVcpu) judged();
            if (fx.outcome == Outcome::AcceptIllegal && fx.known)
                report(c, e, c.model.vcpu(fx.vcpu), "vector >= 16", "accept of vector " + vec_str(fx.vector));
        } else if ((fx.outcome == Outcome::Injected || fx.outcome == Outcome::InjectedAutoEoi) && fx.checkable) {
            judged();
            if (fx.vector >= apic::kFirstLegalVector) return;
            report(c, e, c.model.vcpu(fx.vcpu), "vector >= 16", "injection of " + vec_str(fx.vector));
        }
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(VectorIllegal, irqflow::replay::VectorIllegal)
