// IPI-EXTRA-DEST: an accept on the sender's thread, of the send's vector and delivery
// mode, for an APIC id the send did not address (physical id, shorthand, x2APIC
// cluster or the xAPIC LDR/DFR the guest programmed) — or a lowest-priority send that
// reached more than one, or one outside its set. Only sends whose destination set is
// exact are judged.
#pragma once
#include "finding_text.hpp"
#include "ipi.hpp"

namespace irqflow::replay::rules {

class IpiExtraDest final : public Check {
public:
    IpiExtraDest(RuleId id, const Model&) : Check(id, kSubscriptions) {}
    static constexpr Subscriptions kSubscriptions{{}, {}, true};
    std::string not_judged(const KindCounts& seen) const override { return ipi::not_judged(seen); }
    void on_ipi(const IpiSend& s, const RuleContext& c) override {
        if (s.lowest_priority || s.exact) judged();
        if (s.lowest_priority) {
            if (!s.received.empty() && !ipi::lowest_priority_ok(s))
                ipi::diagnose_send(s, c,
                                   report(c, s.ts, s.record, s.vm, s.sender, ipi::what(s) + ": one of APIC ids " + ids_str(s.expected) + " (lowest priority)",
                                          "delivered to " + ids_str(s.received)));
            return;
        }
        if (!s.exact || s.expected.includes(s.received)) return;  // (the common case: no set built)
        ApicIdSet extra;
        for (auto id : s.received)
            if (!s.expected.count(id)) extra.insert(id);
        if (!extra.empty())
            ipi::diagnose_send(s, c,
                               report(c, s.ts, s.record, s.vm, s.sender, ipi::what(s) + " to APIC ids " + ids_str(s.expected),
                                      "also delivered to " + ids_str(extra)));
    }
};

}  // namespace irqflow::replay::rules
