// Draws a Timeline with ImGui's draw list. Only what is visible is drawn, and below a
// pixel everything is aggregated: one column per pixel (the Tracy way), so drawing
// costs the same at any zoom.
#pragma once
#include "timeline.hpp"

struct ImDrawList;

namespace irqflow::gui {

void draw_timeline(ImDrawList* dl, const Timeline& tl, const Layout& layout, float origin_x, float origin_y);

}  // namespace irqflow::gui
