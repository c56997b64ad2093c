// VECTOR-ILLEGAL: vectors 0-15 are reserved for exceptions; the APIC rejects them in
// fixed and lowest-priority delivery (SDM: "illegal vector" in ESR). An accept or an
// injection of one is a KVM or VMM bug.
#pragma once
#include "injection.hpp"
#include <string>

namespace irqflow::replay::rules {

class VectorIllegal final : public Check {
public:
    VectorIllegal(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::ApicAcceptIrq, EventKind::InjVirq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq, EventKind::InjVirq}); !s.empty()) return s;
        return "no accept or injection came while its vCPU's APIC state was known";
    }
    template <EventKind K>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if constexpr (K == EventKind::ApicAcceptIrq) {
            if (fx.known && fx.vcpu != kNoVcpu) judged();
            if (fx.outcome == Outcome::AcceptIllegal && fx.known) illegal(c, e, fx, "vec");
        } else if ((fx.outcome == Outcome::Injected || fx.outcome == Outcome::InjectedAutoEoi) && fx.checkable) {
            judged();
            if (fx.vector >= apic::kFirstLegalVector) return;
            illegal(c, e, fx, "vector");
        }
    }

private:
    [[gnu::noinline]] void illegal(const RuleContext& c, const Event& e, const Effect& fx, const char* field) const {
        const auto& v = c.model.vcpu(fx.vcpu);
        diagnose::Candidates k(v.vm, v.id);
        auto& x = k.wrong(e.kind, {e.record, e.ts}, field, fx.vector, apic::kFirstLegalVector, 0.9,
                          "vectors below 0x10 are the exceptions'; the APIC refuses them in fixed delivery");
        x.expected_text = "a vector of 0x10 or above";
        x.evidence = {e.record};
        report(c, e, v, "vector >= 16", std::string(e.kind == EventKind::ApicAcceptIrq ? "accept of vector " : "injection of ") + vec_str(fx.vector))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
