// ACCEPT-UNKNOWN-APIC: KVM delivers only to APICs that exist in its map of the VM, so
// an accept for an APIC id no vCPU of the VM owns means the trace and the VM disagree
// (a vCPU the attribution missed, or a corrupted destination).
#include <string>

#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay {
namespace {

class AcceptUnknownApic final : public Check {
public:
    AcceptUnknownApic(RuleId id, const Model&) : Check(id) {}
    Subscriptions subscriptions() const override { return {{EventKind::ApicAcceptIrq}, {}, false}; }
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq}); !s.empty()) return s;
        return "no accept into a VM whose vCPUs are known";
    }
    void before(const Event& e, const Effect& fx, const RuleContext& c) override {
        if (e.vm == kUnknownVm || c.model.vm_count() == 0) return;
        judged();
        if (fx.outcome != Outcome::AcceptNoVcpu) return;
        report(c, e.ts, e.record, e.vm, kUnknownVcpu, "an APIC id owned by a vCPU of vm" + std::to_string(e.vm.value()),
               "accept for APIC id " + std::to_string(static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0))) + ", vector " + vec_str(fx.vector));
    }
};

}  // namespace
}  // namespace irqflow::replay

IRQFLOW_REGISTER_RULE(AcceptUnknownApic, irqflow::replay::AcceptUnknownApic)
