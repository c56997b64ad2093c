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

struct Finding {
    RuleId rule;
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
    TimestampNs ts;
    std::uint64_t record = 0;  // raw record index (trace-cmd report line)
    std::string expected;
    std::string observed;
    // Records that built the expectation, oldest first, with what each did.
    std::vector<std::pair<std::uint64_t, std::string>> chain;
    // What the model adopted from the trace after this divergence so that later events
    // are checked against the trace again (replay/README.md, "Recovery"), or empty.
    std::string resync;
    // A follow-on: the index (in the result's findings) of the earlier root finding on
    // this vCPU whose fault explains it; none for a root (replay/README.md, "Recovery").
    std::optional<std::size_t> caused_by;
};

}  // namespace irqflow::replay
