// The statistics tab's data: the replay's statistics as rows of text, and the rows
// about lost events and unsynced stretches. No ImGui here.
#pragma once
#include <string>
#include <vector>

#include "irqflow/replay/replay.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {

// The replay's statistics the GUI shows (replay's statistics list, kGui), as text: counts
// as numbers, ratios as percentages, name → count maps as "name count, …". Exits by
// reason are left to the per-vCPU exit table.
struct StatRow {
    std::string key, meaning, value;
};
std::vector<StatRow> statistics_rows(const replay::ReplayResult& r);
// The statistics tab's first row: the events lost, in how many gaps, and how long they
// left the trace blind ("276 in 1 gap, 5.3 ms"; "none").
StatRow lost_events_row(const Timeline& tl);
// The second row: how many unsynced stretches the lanes have and how much of the vCPUs'
// time they cover ("12 stretches, 1.234 s of vCPU time (3.1 %)"; "none").
StatRow unsynced_row(const Timeline& tl);

}  // namespace irqflow::gui
