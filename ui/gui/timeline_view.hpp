// Draws a Timeline with ImGui's draw list. Only what is visible is drawn, and below a
// pixel everything is aggregated: one column per pixel (the Tracy way), so drawing
// costs the same at any zoom.
#pragma once
#include "navigation_model.hpp"
#include "overview_model.hpp"
#include "time_axis.hpp"
#include "timeline_model.hpp"

struct ImDrawList;

namespace irqflow::gui {

class ColumnImage;

// Draws the filter's lanes, one row each; `only` (built for filter.vector, or null for
// all vectors) supplies the ISR bars, markers and arrows. Per-column strips go into
// `strips` when given (column_image.hpp), else they are drawn as rectangles.
// The axis counts from the trace start (or the clock's zero with `absolute_time`); a
// cursor line marks `cursor_ts` (the inspector's pinned time) when it is 0 or later.
// Markers A and B (when 0 or later) are lines labelled in the axis row; with both set
// the range between them is shaded and the axis row says how far apart they are.
struct ViewMarks {
    bool absolute_time = true;
    std::int64_t cursor_ts = -1;
    std::int64_t mark_a = -1, mark_b = -1;
};
void draw_timeline(ImDrawList* dl, const Timeline& tl, const Filter& filter, const VectorLayers* only, const Layout& layout,
                   float origin_x, float origin_y, ColumnImage* strips = nullptr, const ViewMarks& marks = {});
// The time axis over the lanes (time_axis.hpp): ticks, labels and the base in the gutter;
// no label over the `taken` spans of the axis row.
void draw_time_axis(ImDrawList* dl, const TimeAxis& axis, const Layout& layout, float origin_x, float origin_y, float lanes_bottom,
                    const std::vector<Span>& taken = {});
// Draws a loading trace's overview (overview.hpp) in the same layout and colours, one
// row per vCPU thread, with what has been read so far.
void draw_overview(ImDrawList* dl, const Overview& o, const Layout& layout, ColumnImage* strips = nullptr);

}  // namespace irqflow::gui
