// The rules' metadata and checks, generated from rules.def: adding a rule is one line
// there and one file here named after its id.
#include <algorithm>
#include <array>

#include "check.hpp"

#define IRQFLOW_RULE(name, id, severity, summary) \
    std::unique_ptr<irqflow::replay::Check> irqflow_make_rule_##name(const irqflow::replay::Model& m);
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE

namespace irqflow::replay {
namespace {

constexpr RuleInfo kRules[] = {
#define IRQFLOW_RULE(name, id, severity, summary) {RuleId::name, id, Severity::severity, summary},
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
};
static_assert(std::size(kRules) == static_cast<std::size_t>(RuleId::Count_));

}  // namespace

const RuleInfo& rule_info(RuleId r) { return kRules[static_cast<std::size_t>(r)]; }
std::span<const RuleInfo> all_rules() { return kRules; }

std::optional<RuleId> rule_by_id(std::string_view id) {
    for (const auto& r : kRules)
        if (r.id == id) return r.rule;
    return std::nullopt;
}

const char* to_string(Severity s) {
    switch (s) {
    case Severity::Divergence: return "divergence";
    case Severity::Liveness: return "liveness";
    }
    return "?";
}

void Check::report(const RuleContext& c, TimestampNs ts, std::uint64_t record, VmId vm, VcpuId vcpu, std::string expected,
                   std::string observed, Chain chain) const {
    Finding f;
    f.rule = id_;
    f.vm = vm;
    f.vcpu = vcpu;
    f.ts = ts;
    f.record = record;
    f.expected = std::move(expected);
    f.observed = std::move(observed);
    f.chain = std::move(chain);
    c.findings.push_back(std::move(f));
}

std::vector<std::unique_ptr<Check>> make_checks(const Model& m) {
    std::vector<std::unique_ptr<Check>> out;
#define IRQFLOW_RULE(name, id, severity, summary) out.push_back(irqflow_make_rule_##name(m));
#include "irqflow/replay/rules.def"
#undef IRQFLOW_RULE
    return out;
}

}  // namespace irqflow::replay
