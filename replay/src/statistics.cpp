// The statistics list: keys, types, outputs and meanings next to how each is read from
// a ReplayResult. `check --json` prints the kCheck ones in this order.
#include "irqflow/replay/statistics.hpp"

#include <array>

namespace irqflow::replay {
namespace {

using Get = StatValue (*)(const ReplayResult&);
struct Row {
    Statistic s;
    Get get;
};

constexpr unsigned kAll = kCheck | kDatabase | kGui;

// clang-format off
const Row kRows[] = {
    {{"semantics", StatType::Text, kCheck | kGui, "PV EOI arming rule the replay used (current or 2012)"},
     [](const ReplayResult& r) -> StatValue { return std::string_view(to_string(r.semantics)); }},
    {{"findings", StatType::Count, kAll, "findings of every rule"},
     [](const ReplayResult& r) -> StatValue { return std::uint64_t{r.findings.size()}; }},
    {{"divergences", StatType::Count, kAll, "findings where the trace contradicts the model"},
     [](const ReplayResult& r) -> StatValue { return r.divergences(); }},
    {{"liveness", StatType::Count, kAll, "findings where an interrupt made no progress"},
     [](const ReplayResult& r) -> StatValue { return r.liveness_failures(); }},
    {{"follow_ons", StatType::Count, kAll, "findings an earlier root finding on the same vCPU explains (caused_by)"},
     [](const ReplayResult& r) -> StatValue { return r.follow_ons(); }},
    {{"injections", StatType::Count, kAll, "injections the model can judge (soft interrupts and re-injections excluded)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.checkable_injections(); }},
    {{"injections_checked", StatType::Count, kAll, "injections judged: the vCPU's state was known"},
     [](const ReplayResult& r) -> StatValue { return r.stats.injections_checked; }},
    {{"eois", StatType::Count, kAll, "EOIs of a vector in service"},
     [](const ReplayResult& r) -> StatValue { return r.stats.real_eois(); }},
    {{"eois_checked", StatType::Count, kAll, "EOIs judged: the vCPU's state was known"},
     [](const ReplayResult& r) -> StatValue { return r.stats.eois_checked; }},
    {{"checked_fraction", StatType::Ratio, kAll, "share of injections and EOIs judged"},
     [](const ReplayResult& r) -> StatValue {
         const auto& s = r.stats;
         const auto all = s.checkable_injections() + s.real_eois();
         return all ? static_cast<double>(s.injections_checked + s.eois_checked) / static_cast<double>(all) : 0.0;
     }},
    {{"eoi_nothing_in_service", StatType::Count, kAll, "EOIs that found nothing in service (kvm_eoi -1; legal)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.eoi_nothing_in_service; }},
    {{"reinjections", StatType::Count, kAll, "re-injections of a delivery an exit cut short"},
     [](const ReplayResult& r) -> StatValue { return r.stats.reinjections; }},
    {{"reinjections_failed_delivery", StatType::Count, kAll, "re-injections after an exit whose vectoring info shows the delivery failed"},
     [](const ReplayResult& r) -> StatValue { return r.stats.reinjections_failed_delivery; }},
    {{"reinjections_cancelled", StatType::Count, kAll, "re-injections after KVM cancelled the entry (no entry in between)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.reinjections_cancelled; }},
    {{"late_irr_writes", StatType::Count, kAll, "injections of a vector outside IRR and ISR forgiven: an accept raced KVM's IRR-to-ISR move"},
     [](const ReplayResult& r) -> StatValue { return r.stats.late_irr_writes; }},
    {{"nested_injections", StatType::Count, kAll, "injections into a nested guest (L2): L0 delivering L1's event, not L1's local APIC"},
     [](const ReplayResult& r) -> StatValue { return r.stats.nested_injections; }},
    {{"extint_injections", StatType::Count, kAll, "injections of the 8259 PIC's ExtINT vectors"},
     [](const ReplayResult& r) -> StatValue { return r.stats.extint_injections; }},
    {{"auto_eoi_injections", StatType::Count, kAll, "injections of Hyper-V SynIC auto-EOI vectors"},
     [](const ReplayResult& r) -> StatValue { return r.stats.auto_eoi_injections; }},
    {{"coalesced_accepts", StatType::Count, kAll, "accepts of a vector already pending (merged edges)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.coalesced_accepts; }},
    {{"coalesced_accepts_own_thread", StatType::Count, kAll, "coalesced accepts sent from the destination vCPU's own thread"},
     [](const ReplayResult& r) -> StatValue { return r.stats.coalesced_accepts_own_thread; }},
    {{"coalesced_accepts_cross_thread", StatType::Count, kAll, "coalesced accepts sent from another thread (other vCPUs, device threads)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.coalesced_accepts_cross_thread; }},
    {{"unsynced_events", StatType::Count, kAll, "vCPU events seen while its state was unknown"},
     [](const ReplayResult& r) -> StatValue { return r.stats.unsynced_events; }},
    {{"eois_by_path", StatType::Counts, kAll, "EOIs by the path that carried them"},
     [](const ReplayResult& r) -> StatValue { return &r.stats.eois_by_path; }},
    {{"pv_eoi_hit_rate", StatType::Ratio, kAll, "share of EOIs that took the PV EOI path"},
     [](const ReplayResult& r) -> StatValue { return r.stats.pv_eoi_hit_rate; }},
    {{"max_nesting", StatType::Count, kAll, "most vectors in service at once on one vCPU whose state was known"},
     [](const ReplayResult& r) -> StatValue { return static_cast<std::uint64_t>(r.stats.max_nesting); }},
    {{"ipis_checked", StatType::Count, kAll, "IPI sends whose destinations were judged"},
     [](const ReplayResult& r) -> StatValue { return r.stats.ipis_checked; }},
    {{"pv_ipi_hypercalls", StatType::Count, kAll, "PV IPI hypercalls (KVM_HC_SEND_IPI)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.pv_ipi_hypercalls; }},
    {{"exits", StatType::Count, kAll, "VM exits"},
     [](const ReplayResult& r) -> StatValue { return r.stats.exits; }},
    {{"exits_by_reason", StatType::Counts, kCheck | kGui, "VM exits by reason"},
     [](const ReplayResult& r) -> StatValue { return &r.stats.exits_by_reason; }},
    {{"exits_saved.pv_eoi", StatType::Count, kAll, "exits PV EOI saved (one per kvm_pv_eoi)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.exits_saved_pv_eoi; }},
    {{"exits_saved.pv_ipi", StatType::Count, kAll, "exits PV IPI saved (the ICR accesses each hypercall replaced, minus it)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.exits_saved_pv_ipi; }},
    {{"accept_to_inject", StatType::Latencies, kCheck, "accept → injection latency per vector"},
     [](const ReplayResult& r) -> StatValue { return &r.stats.accept_to_inject; }},
    {{"inject_to_eoi", StatType::Latencies, kCheck, "injection → EOI latency per vector"},
     [](const ReplayResult& r) -> StatValue { return &r.stats.inject_to_eoi; }},
    {{"gaps", StatType::Count, kAll, "lost-event gaps"},
     [](const ReplayResult& r) -> StatValue { return r.stats.gaps; }},
    {{"clock_skew_bound_ns", StatType::Count, kAll, "bound on the skew between host CPUs' trace clocks, ns (0: no bound)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.clock_skew_bound_ns; }},
    {{"clock_skew_pairs", StatType::Count, kAll, "cross-CPU cause-effect pairs (accept, injection) the skew bound comes from"},
     [](const ReplayResult& r) -> StatValue { return r.stats.clock_skew_pairs; }},
    // not in `check --json` (whose output is stable), shown everywhere else
    {{"injections_all", StatType::Count, kDatabase | kGui, "every kvm_inj_virq, soft interrupts and re-injections included"},
     [](const ReplayResult& r) -> StatValue { return r.stats.injections; }},
    {{"pv_eois", StatType::Count, kDatabase | kGui, "kvm_pv_eoi events"},
     [](const ReplayResult& r) -> StatValue { return r.stats.pv_eois; }},
    {{"exits_saved.hv_eoi_assist", StatType::Count, kDatabase | kGui,
      "exits the Hyper-V EOI assist saved (the kvm_pv_eoi of vCPUs that enabled it through the VP assist page)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.exits_saved_hv_eoi_assist; }},
    {{"exits_saved.hv_ipi", StatType::Count, kDatabase | kGui, "exits Hyper-V IPI hypercalls saved (the ICR accesses each replaced, minus it)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.exits_saved_hv_ipi; }},
    {{"icr_ipis", StatType::Count, kDatabase | kGui, "IPIs sent by ICR writes"},
     [](const ReplayResult& r) -> StatValue { return r.stats.icr_ipis; }},
    {{"hv_ipis", StatType::Count, kDatabase | kGui, "IPIs sent by Hyper-V hypercalls"},
     [](const ReplayResult& r) -> StatValue { return r.stats.hv_ipis; }},
    {{"predicted_pv_eoi_saved", StatType::Count, kDatabase | kGui, "exits PV EOI would have saved (EOI exits while it would have been armed)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.predicted_pv_eoi_saved; }},
    {{"predicted_pv_ipi_saved", StatType::Count, kDatabase | kGui, "exits PV IPI would have saved (ICR writes of multi-destination sends)"},
     [](const ReplayResult& r) -> StatValue { return r.stats.predicted_pv_ipi_saved; }},
    {{"icr_sends_multi", StatType::Count, kDatabase | kGui, "runs of ICR writes forming one multi-destination send"},
     [](const ReplayResult& r) -> StatValue { return r.stats.icr_sends_multi; }},
};
// clang-format on

const std::array<Statistic, std::size(kRows)> kStatistics = [] {
    std::array<Statistic, std::size(kRows)> a{};
    for (std::size_t i = 0; i < std::size(kRows); ++i) a[i] = kRows[i].s;
    return a;
}();

}  // namespace

std::span<const Statistic> statistics() { return kStatistics; }

StatValue stat_value(const ReplayResult& r, std::size_t index) { return kRows[index].get(r); }

std::string stat_db_key(const Statistic& s) {
    std::string k(s.key);
    for (auto& c : k)
        if (c == '.') c = '_';
    return k;
}

}  // namespace irqflow::replay
