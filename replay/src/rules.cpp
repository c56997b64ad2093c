#include <array>

#include "irqflow/replay/finding.hpp"

namespace irqflow::replay {
namespace {

using S = Severity;
constexpr RuleInfo kRules[] = {
    {Rule::InjNotPending, "INJ-NOT-PENDING", S::Divergence, "injected vector was not pending in IRR"},
    {Rule::InjNotHighest, "INJ-NOT-HIGHEST", S::Divergence, "injected vector is not the highest deliverable vector"},
    {Rule::InjBlockedByPriority, "INJ-BLOCKED-BY-PPR", S::Divergence, "injection although PPR blocks every pending vector"},
    {Rule::InjReinjectNotInService, "INJ-REINJECT-NOT-IN-SERVICE", S::Divergence, "re-injection of a vector not in service"},
    {Rule::IsrOrder, "ISR-ORDER", S::Divergence, "nesting not strictly increasing in priority class"},
    {Rule::VectorIllegal, "VECTOR-ILLEGAL", S::Divergence, "fixed-mode vector below 16"},
    {Rule::EoiNotHighestIsr, "EOI-NOT-HIGHEST-ISR", S::Divergence, "EOI cleared another vector than the highest in service"},
    {Rule::EoiNothingInService, "EOI-NOTHING-IN-SERVICE", S::Info, "EOI with nothing in service (legal)"},
    {Rule::EoiWhileServiceKnown, "EOI-ISR-NOT-EMPTY", S::Divergence, "kernel found ISR empty where the model has vectors in service"},
    {Rule::PvEoiNotArmed, "PVEOI-NOT-ARMED", S::Divergence, "PV EOI taken where the arming rule did not allow it"},
    {Rule::PvEoiWithoutEoi, "PVEOI-WITHOUT-EOI", S::Divergence, "kvm_pv_eoi not preceded by its kvm_eoi"},
    {Rule::IpiMissingDest, "IPI-MISSING-DEST", S::Divergence, "an IPI destination received no interrupt"},
    {Rule::IpiExtraDest, "IPI-EXTRA-DEST", S::Divergence, "an interrupt the IPI did not address"},
    {Rule::AcceptUnknownApic, "ACCEPT-UNKNOWN-APIC", S::Divergence, "interrupt accepted for an APIC id no vCPU owns"},
    {Rule::StuckPending, "LIVE-PENDING-NOT-INJECTED", S::Liveness, "vector deliverable for long while the vCPU kept entering"},
    {Rule::StuckInService, "LIVE-NO-EOI", S::Liveness, "vector in service without EOI beyond the threshold"},
    {Rule::ReinjectLoop, "LIVE-REINJECT-LOOP", S::Liveness, "same vector re-injected over and over without progress"},
    {Rule::LevelStorm, "LIVE-LEVEL-STORM", S::Liveness, "level line re-asserted after every EOI in a loop"},
};
static_assert(std::size(kRules) == static_cast<std::size_t>(Rule::Count_));

constexpr bool ordered() {
    for (std::size_t i = 0; i < std::size(kRules); ++i)
        if (static_cast<std::size_t>(kRules[i].rule) != i) return false;
    return true;
}
static_assert(ordered(), "kRules must follow Rule order");

}  // namespace

const RuleInfo& rule_info(Rule r) { return kRules[static_cast<std::size_t>(r)]; }

const char* to_string(Severity s) {
    switch (s) {
    case Severity::Info: return "info";
    case Severity::Divergence: return "divergence";
    case Severity::Liveness: return "liveness";
    }
    return "?";
}

}  // namespace irqflow::replay
