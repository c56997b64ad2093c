// The findings tab's data: roots with their follow-ons, and where a diagnosis puts the
// timeline. No ImGui here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "irqflow/replay/replay.hpp"

namespace irqflow::gui {

// The findings tab's tree: root findings in order, each with its follow-ons (the findings
// whose caused_by names it, replay/README.md "Recovery"), as indices into r.findings.
struct FindingGroup {
    std::size_t root = 0;
    std::vector<std::size_t> follow_ons;
};
std::vector<FindingGroup> finding_groups(const replay::ReplayResult& r);

// Where a click on a diagnosis puts the timeline: the view [t0, t1] around the records
// the explanation names, markers A and B on its first and last.
struct DiagnosisWindow {
    std::int64_t t0, t1, mark_a, mark_b;
};
DiagnosisWindow diagnosis_window(const replay::Explanation& x);

}  // namespace irqflow::gui
