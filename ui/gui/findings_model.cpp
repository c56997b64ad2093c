#include "findings_model.hpp"

#include <algorithm>
#include <optional>

namespace irqflow::gui {

std::vector<FindingGroup> finding_groups(const replay::ReplayResult& r) {
    // A root can come after its follow-ons: an IPI send is decided when its sender enters
    // again, after a receiver showed the consequence. A caused_by naming no root (itself,
    // past the end, another follow-on) is shown as a root.
    const std::size_t n = r.findings.size();
    const auto root_of = [&](std::size_t i) -> std::optional<std::size_t> {
        const auto& c = r.findings[i].caused_by;
        if (!c || *c >= n || *c == i || r.findings[*c].caused_by) return std::nullopt;
        return *c;
    };
    std::vector<FindingGroup> groups;
    std::vector<std::size_t> group_of(n, SIZE_MAX);
    for (std::size_t i = 0; i < n; ++i)
        if (!root_of(i)) {
            group_of[i] = groups.size();
            groups.push_back({i, {}});
        }
    for (std::size_t i = 0; i < n; ++i)
        if (const auto root = root_of(i)) groups[group_of[*root]].follow_ons.push_back(i);
    return groups;
}

// The diagnosis window on the timeline: markers at its ends, the view a little wider.
DiagnosisWindow diagnosis_window(const replay::Explanation& x) {
    const std::int64_t a = x.from_ts.value(), b = std::max(x.to_ts.value(), a + 1);
    const std::int64_t margin = std::max<std::int64_t>((b - a) / 4, 20'000);  // at least 20 µs each side
    return {a - margin, b + margin, a, b};
}

}  // namespace irqflow::gui
