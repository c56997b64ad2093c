// The rules' metadata, generated from rules.def (their checks: rule_set.hpp), and how a
// rule reports.
#include <algorithm>
#include <array>
#include <string>

#include "check.hpp"

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

Finding& Check::report(const RuleContext& c, TimestampNs ts, std::uint64_t record, VmId vm, VcpuId vcpu, std::string expected,
                       std::string observed, Chain chain) const {
    c.findings.push_back(Finding{.rule = id_,
                                 .vm = vm,
                                 .vcpu = vcpu,
                                 .ts = ts,
                                 .record = record,
                                 .expected = std::move(expected),
                                 .observed = std::move(observed),
                                 .chain = std::move(chain)});
    return c.findings.back();
}

std::string none_of(const KindCounts& seen, std::initializer_list<EventKind> kinds) {
    std::string names;
    for (auto k : kinds) {
        if (seen[static_cast<std::size_t>(k)]) return {};
        names += (names.empty() ? "" : " or ") + std::string(kind_info(k).name);
    }
    return "no " + names + " in the input";
}

std::string Check::not_judged(const KindCounts& seen) const {
    const auto s = subscriptions();
    std::vector<EventKind> kinds(s.before.begin(), s.before.end());
    kinds.insert(kinds.end(), s.after.begin(), s.after.end());
    bool any = false;
    std::string names;
    int named = 0;
    for (auto k : kinds) {
        if (k == EventKind::Lost || names.find(kind_info(k).name) != std::string::npos) continue;
        any = any || seen[static_cast<std::size_t>(k)] > 0;
        names += (names.empty() ? "" : ", ") + std::string(kind_info(k).name);
        ++named;
    }
    if (!any && named) return (named == 1 ? "no " : "none of ") + names + " in the input";
    return "nothing in the input it applies to";
}

}  // namespace irqflow::replay
