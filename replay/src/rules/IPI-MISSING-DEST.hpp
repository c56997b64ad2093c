// IPI-MISSING-DEST: KVM delivers an IPI synchronously on the sender's thread
// (kvm_apic_send_ipi / kvm_pv_send_ipi / the Hyper-V hypercall → kvm_apic_set_irq), so
// every APIC id the send addresses gets a kvm_apic_accept_irq before the sender enters
// the guest again. One missing is an interrupt lost on its way (or a routing bug).
// Lowest-priority sends must reach exactly one of their destinations.
#pragma once
#include "finding_text.hpp"
#include "ipi.hpp"

namespace irqflow::replay::rules {

class IpiMissingDest final : public Check {
public:
    IpiMissingDest(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {}, true};
    std::string not_judged(const KindCounts& seen) const override { return ipi::not_judged(seen); }
    void on_ipi(const IpiSend& s, const RuleContext& c) override {
        if (s.lowest_priority || s.exact) judged();
        if (s.lowest_priority) {
            if (s.received.empty())
                ipi::diagnose_send(s, c,
                                   report(c, s.ts, s.record, s.vm, s.sender, ipi::what(s) + ": one of APIC ids " + ids_str(s.expected) + " (lowest priority)",
                                          "delivered to " + ids_str(s.received)));
            return;
        }
        if (!s.exact || s.received.includes(s.expected)) return;  // (the common case: no set built)
        ApicIdSet missing;
        for (auto id : s.expected)
            if (!s.received.count(id)) missing.insert(id);
        if (!missing.empty())
            ipi::diagnose_send(s, c,
                               report(c, s.ts, s.record, s.vm, s.sender, ipi::what(s) + " to APIC ids " + ids_str(s.expected),
                                      "no interrupt for " + ids_str(missing) + "; delivered to " + ids_str(s.received)));
    }
};

}  // namespace irqflow::replay::rules
