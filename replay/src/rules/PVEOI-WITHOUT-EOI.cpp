// PVEOI-WITHOUT-EOI: KVM handles a PV EOI (the guest cleared the flag instead of
// writing the EOI register) at the next exit by doing the EOI itself: kvm_eoi, then
// kvm_pv_eoi of the same vector (apic_sync_pv_eoi_from_guest), back to back on the vCPU's
// thread. A kvm_pv_eoi without that kvm_eoi right before it means the EOI was lost or
// the pair is broken.
#include "finding_text.hpp"
#include "pv_eoi.hpp"

namespace irqflow::replay {
namespace {

class PvEoiWithoutEoi final : public Check {
public:
    PvEoiWithoutEoi(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::PvEoi}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::PvEoi}); !s.empty()) return s;
        return "no kvm_pv_eoi came while its vCPU's APIC state was known (and APICv/AVIC off)";
    }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (!fx.checkable) return;
        judged();
        if (pv_eoi::follows_its_eoi(e, fx.vector, c)) return;
        report(c, e, c.model.vcpu(fx.vcpu), "kvm_eoi of " + vec_str(fx.vector) + " right before", "kvm_pv_eoi of " + vec_str(fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(PvEoiWithoutEoi, irqflow::replay::PvEoiWithoutEoi)
