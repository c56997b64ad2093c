// What the replay reports: divergences between the trace and the model, liveness
// failures, and informational facts, each under a stable rule id (replay/README.md).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/types.hpp"

namespace irqflow::replay {

enum class Severity { Info, Divergence, Liveness };

enum class Rule {
    InjNotPending,        // injected vector was not pending in IRR
    InjNotHighest,        // injected vector is not the highest deliverable one
    InjBlockedByPriority, // injection although PPR blocks every pending vector
    InjReinjectNotInService,
    IsrOrder,             // nesting broke the strictly-increasing-class order
    VectorIllegal,        // fixed-mode vector below 16
    EoiNotHighestIsr,     // EOI cleared another vector than the highest in service
    EoiNothingInService,  // EOI with nothing in service (legal; info)
    EoiWhileServiceKnown, // kernel says nothing in service, model has vectors in ISR
    PvEoiNotArmed,        // kvm_pv_eoi where the arming rule did not allow it
    PvEoiWithoutEoi,      // kvm_pv_eoi not preceded by its kvm_eoi
    IpiMissingDest,       // an IPI destination got no kvm_apic_accept_irq
    IpiExtraDest,         // a kvm_apic_accept_irq the IPI did not address
    AcceptUnknownApic,    // accept for an APIC id no vCPU owns
    StuckPending,         // deliverable for long while the vCPU kept entering, never injected
    StuckInService,       // in service without EOI for longer than the threshold
    ReinjectLoop,         // the same vector re-injected over and over, no progress
    LevelStorm,           // a level line re-asserted right after every EOI, in a loop
    Count_
};

struct RuleInfo {
    Rule rule;
    std::string_view id;       // stable, e.g. "INJ-NOT-HIGHEST"
    Severity severity;
    std::string_view summary;
};
const RuleInfo& rule_info(Rule r);

struct Finding {
    Rule rule;
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    TimestampNs ts;
    std::uint64_t record = 0;     // raw record index (trace-cmd report line)
    std::string expected;
    std::string observed;
    // Records that built the expectation, oldest first, with what each did.
    std::vector<std::pair<std::uint64_t, std::string>> chain;
};

const char* to_string(Severity s);

}  // namespace irqflow::replay
