// The compare view's data side (irqflow-gui --compare A B, ui/README.md "Comparing two
// runs"): the diff of the two sessions, and for each of its rows an example in each run
// to align the two timelines at. No ImGui here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compare.hpp"
#include "session.hpp"

namespace irqflow::gui {

// "DB:SESSION" names a stored session when DB is a database; anything else is a path.
SessionSource source_of(const std::string& given);

std::vector<ui::DiffRow> diff_rows(const Session& a, const Session& b);

// An instance of what row `key` counts in each run: the first at or after `a_from` /
// `b_from` (and the first of all when there is none after), -1 where a run has none.
// Exits of a reason, injections of a vector, EOIs by path (or that exited / did not),
// the interrupt whose latency is nearest the row's percentile, IPIs, findings of a rule.
struct Example {
    std::int64_t a_ts = -1, b_ts = -1;
};
Example example_of(const ui::DiffRow& row, const Session& a, const Session& b, std::int64_t a_from, std::int64_t b_from);

}  // namespace irqflow::gui
