// What the replay reports: divergences between the trace and the model and liveness
// failures, each under a stable rule id (rules.def, replay/README.md).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "irqflow/capture/event.hpp"
#include "irqflow/capture/types.hpp"

namespace irqflow::replay {

enum class Severity { Divergence, Liveness };
const char* to_string(Severity s);

enum class RuleId {
#define IRQFLOW_RULE(name, id, severity, summary) name,
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    Count_
};

struct RuleInfo {
    RuleId rule;
    std::string_view id;  // stable, e.g. "INJ-NOT-HIGHEST"; the rule's file is replay/src/rules/<id>.cpp
    Severity severity;
    std::string_view summary;  // when it fires
};
const RuleInfo& rule_info(RuleId r);
std::span<const RuleInfo> all_rules();
std::optional<RuleId> rule_by_id(std::string_view id);

// What most likely happened, in a small fixed vocabulary (replay/README.md, "Diagnosis").
enum class Cause : std::uint8_t {
    Missing,     // an event the model required is not in the trace (in the window from..to)
    Extra,       // an event the model cannot account for (the record from == to)
    WrongField,  // an event whose field holds another value than the model expected
    Late,        // an event that came, after its deadline
    Stuck,       // nothing progressed: what, since when, the last event that would have
};
const char* to_string(Cause c);  // "missing", "extra", "wrong-field", "late", "stuck"

// One explanation of a finding: an edit of the trace that would make the replay agree.
struct Explanation {
    Cause cause = Cause::Missing;
    EventKind kind = EventKind::Other;  // the event that is missing, extra, wrong, late or stuck
    int vector = -1;
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    // The records the event should have been between (missing; stuck: since..now), or
    // the record itself (extra, wrong-field, late: from == to), with their times.
    std::uint64_t from = 0, to = 0;
    TimestampNs from_ts, to_ts;
    // wrong-field: which field, the value seen and the one expected
    std::string field{};
    std::int64_t seen = 0, expected = 0;
    std::string expected_text{};  // when the expected value is a description, not one value
    std::string why{};  // the evidence in words ("0xfb was still in service when …")
    // An event of the guest's own trace (ReplayOptions::guest): its trace point, and for
    // an extra one its guest record (from/to are then the host's records around it).
    std::string guest_event{};
    std::optional<std::uint64_t> guest_record{};
    std::vector<std::uint64_t> evidence{};  // the records it rests on
    double weight = 0;  // how strongly the evidence supports it (0..1), for ordering
};

// The diagnosis of a root finding: its most likely explanation, and any other nearly as
// likely (replay/README.md, "Diagnosis").
struct Diagnosis {
    Explanation top;
    std::vector<Explanation> alternatives;
};

struct Finding {
    RuleId rule;
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    TimestampNs ts;
    std::uint64_t record = 0;  // raw record index (trace-cmd report line)
    // A finding about an event of the guest's trace: its record there (`record` is then
    // the host's last record before it).
    std::optional<std::uint64_t> guest_record{};
    std::string expected;
    std::string observed;
    // Records that built the expectation, oldest first, with what each did.
    std::vector<std::pair<std::uint64_t, std::string>> chain;
    // What the model adopted from the trace after this divergence so that later events
    // are checked against the trace again (replay/README.md, "Recovery"), or empty.
    std::string resync{};
    // A follow-on: the index (in the result's findings) of the earlier root finding on
    // this vCPU whose fault explains it; none for a root (replay/README.md, "Recovery").
    std::optional<std::size_t> caused_by{};
    // What most likely happened (every root finding has one).
    std::optional<Diagnosis> diagnosis{};
    // vCPUs and vectors whose later findings this fault explains (an IPI's accept that
    // went to another vCPU: the one it was for injects without it, the other holds it).
    struct Implicated {
        VmId vm = kUnknownVm;
        VcpuId vcpu = kUnknownVcpu;
        int vector = -1;
    };
    std::vector<Implicated> implicates{};
    // Decided at the end of the input, not at the rule's evidence threshold: a liveness
    // rule's "never happened" judged on what the input held (a longer run might have
    // shown it).
    bool at_end = false;
};

}  // namespace irqflow::replay
