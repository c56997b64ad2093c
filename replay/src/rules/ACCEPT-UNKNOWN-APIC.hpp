// ACCEPT-UNKNOWN-APIC: KVM delivers only to APICs that exist in its map of the VM, so
// an accept for an APIC id no vCPU of the VM owns means the trace and the VM disagree
// (a vCPU the attribution missed, or a corrupted destination).
#pragma once
#include <string>

#include "../diagnose/explain.hpp"
#include "check.hpp"
#include "finding_text.hpp"

namespace irqflow::replay::rules {

class AcceptUnknownApic final : public Check {
public:
    AcceptUnknownApic(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{EventKind::ApicAcceptIrq}, {}, false};
    std::string not_judged(const KindCounts& seen) const override {
        if (auto s = none_of(seen, {EventKind::ApicAcceptIrq}); !s.empty()) return s;
        return "no accept into a VM whose vCPUs are known";
    }
    template <EventKind>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const RuleContext& c) {
        if (e.vm == kUnknownVm || c.model.vm_count() == 0) return;
        judged();
        if (fx.outcome == Outcome::AcceptNoVcpu) fire(e, fx, c);
    }

private:
    [[gnu::noinline]] void fire(const Event& e, const Effect& fx, const RuleContext& c) const {
        const auto apic = static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0));
        diagnose::Candidates k(e.vm, kUnknownVcpu);
        auto& x = k.wrong(EventKind::ApicAcceptIrq, {e.record, e.ts}, "apicid", apic, 0, 0.6,
                          "no vCPU of vm" + std::to_string(e.vm.value()) + " has APIC id " + std::to_string(apic));
        x.expected_text = "the APIC id of one of its vCPUs";
        x.vector = fx.vector;
        x.evidence = {e.record};
        k.missing(EventKind::Entry, -1, {0, TimestampNs(0)}, {e.record, e.ts}, 0.4,
                  "or a vCPU with APIC id " + std::to_string(apic) + " exists that the trace never shows running")
            .evidence = {e.record};
        report(c, e.ts, e.record, e.vm, kUnknownVcpu, "an APIC id owned by a vCPU of vm" + std::to_string(e.vm.value()),
               "accept for APIC id " + std::to_string(apic) + ", vector " + vec_str(fx.vector))
            .diagnosis = k.pick();
    }
};

}  // namespace irqflow::replay::rules
