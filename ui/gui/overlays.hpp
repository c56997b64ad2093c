// Windows over the timeline: the key of colours (legend.hpp) and the key overlay
// (key_help.hpp).
#pragma once
#include "legend.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// The width the key of colours takes beside the lanes in a window `window_width` wide:
// its widest line, never more than kLegendShare of the window, so the lanes keep the rest.
inline constexpr float kLegendShare = 0.4f;
float legend_dock_width(const std::vector<LegendGroup>& groups, float window_width);
// The key of colours docked right of the lanes, from `left` to the window's right edge
// and between `top` and `bottom` (it scrolls): the lanes end where it begins, so it hides
// nothing. Shown while u.show_legend (L or --legend).
void legend_window(const std::vector<LegendGroup>& groups, UiState& u, float left, float top, float bottom);
// Every key and mouse action, over the middle of the window; shown while u.show_keys.
void key_help_window(UiState& u);

}  // namespace irqflow::gui
