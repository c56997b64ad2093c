// LIVE-NO-EOI: a handler ends with an EOI, so the highest vector in service gets one
// soon while the vCPU keeps running; until then PPR blocks every vector of its class
// and below. One in service longer than ReplayOptions::no_eoi_threshold_ns while the vCPU
// keeps entering the guest is a guest stuck in (or having lost) its handler, or an EOI
// the trace lost. Reported once per injection.
#include <array>
#include <string>
#include <vector>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class LiveNoEoi final : public Check {
public:
    LiveNoEoi(RuleId id, const Model& m) : Check(id), reported_(m.vcpu_count()) {}
    Subscriptions subscriptions() const override { return {{}, {EventKind::InjVirq, EventKind::Entry}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::Entry}); !s.empty()) return s;
        return "no vCPU entered the guest with a vector in service while its APIC state was known";
    }
    void after(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (fx.vcpu == kNoVcpu) return;
        auto& reported = reported_[static_cast<std::size_t>(fx.vcpu.value())];
        if (e.kind == EventKind::InjVirq) {
            if (fx.outcome == Outcome::Injected) reported[static_cast<std::size_t>(fx.vector)] = false;
            return;
        }
        const auto& v = c.model.vcpu(fx.vcpu);
        if (!v.synced || v.lapic.isr().empty()) return;
        judged();
        const int top = v.lapic.isr().highest();  // the top one is what blocks progress
        const auto& x = c.evidence.of(fx.vcpu, top);
        const auto u = static_cast<std::size_t>(top);
        if (!x.injected_at || e.ts.value() - x.injected_at <= c.options.no_eoi_threshold_ns || reported[u]) return;
        reported[u] = true;
        report(c, e, v, "EOI of " + vec_str(top) + " within " + std::to_string(c.options.no_eoi_threshold_ns / 1000000) + " ms",
               "in service for " + std::to_string((e.ts.value() - x.injected_at) / 1000000) + " ms", {{x.inject_record, "injected " + vec_str(top)}});
    }

private:
    std::vector<std::array<bool, 256>> reported_;  // per vCPU and vector, since its last injection
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(LiveNoEoi, irqflow::replay::LiveNoEoi)
