// What the PV EOI rules share: what they judge, and whether a kvm_pv_eoi comes right
// after its kvm_eoi.
#pragma once
#include "check.hpp"

namespace irqflow::replay::pv_eoi {

// KVM emits the pair from one function (apic_sync_pv_eoi_from_guest → kvm_lapic_set_eoi
// traces kvm_eoi, then kvm_pv_eoi), so the event before a kvm_pv_eoi on its thread is
// the kvm_eoi of the same vector; only other CPUs' events can come between. The scan
// back stops after RecentEvents::kSize events: further than any interleaving of a real trace.
inline bool follows_its_eoi(const Event& e, int vector, const RuleContext& c) {
    for (std::size_t k = 1; k <= c.recent.available(); ++k) {
        const RecentEvents::Entry p = c.recent.back(k);
        if (p.tid != e.tid) continue;
        return p.kind == EventKind::Eoi && p.eoi_vector == vector;
    }
    return false;
}

// Both judge each kvm_pv_eoi of a vCPU whose APIC state is known.
class Check : public replay::Check {
public:
    static constexpr Subscriptions kSubscriptions{{EventKind::PvEoi}, {}, false};
    explicit Check(RuleId id) : replay::Check(id, kSubscriptions) {}
    std::string not_judged(const KindCounts& seen) const final {
        if (auto s = none_of(seen, {EventKind::PvEoi}); !s.empty()) return s;
        return "no kvm_pv_eoi came while its vCPU's APIC state was known (and APICv/AVIC off)";
    }
};

}  // namespace irqflow::replay::pv_eoi
