// PVEOI-NOT-ARMED: the guest may skip the EOI exit only when the host armed PV EOI for
// the vector in service (replay/README.md, "PV EOI arming"): current kernels arm
// before an entry iff PV EOI is enabled, IRR is empty and the one vector in service is
// not IOAPIC-handled; the 2012 series armed at injection and disarmed on nesting. A PV
// EOI the rule did not allow means the guest skipped an EOI KVM needed (a level or
// IOAPIC-routed interrupt left unacknowledged, a pending vector left waiting).
#include "finding_text.hpp"
#include "pv_eoi.hpp"

namespace irqflow::replay {
namespace {

class PvEoiNotArmed final : public Check {
public:
    PvEoiNotArmed(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::PvEoi}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::PvEoi}); !s.empty()) return s;
        return "no kvm_pv_eoi came while its vCPU's APIC state was known (and APICv/AVIC off)";
    }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!fx.checkable) return;
        judged();
        if (!pv_eoi::follows_its_eoi(e, fx.vector, c)) return;  // PVEOI-WITHOUT-EOI's case
        const auto& v = c.model.vcpu(fx.vcpu);
        const bool y2012 = c.semantics == PvEoiSemantics::Original2012;
        if (y2012 ? fx.pv_eoi.armed_2012 : fx.pv_eoi.armed_current) return;
        std::string why = !fx.pv_eoi.enabled ? "PV EOI not enabled" : y2012 ? "disarmed (nested interrupt or IOAPIC vector)" : "not armed at the last entry";
        Chain chain;
        if (const auto rec = c.evidence.of(fx.vcpu, fx.vector).inject_record) chain.push_back({rec, "injected " + vec_str(fx.vector)});
        report(c, e, v, "a real EOI (" + why + ")", "EOI of " + vec_str(fx.vector) + " through PV EOI", std::move(chain));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(PvEoiNotArmed, irqflow::replay::PvEoiNotArmed)
