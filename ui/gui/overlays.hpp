// Windows over the timeline: the key of colours (legend.hpp) and the key overlay
// (key_help.hpp).
#pragma once
#include "legend.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// The key of colours at the top right of the plot, between `top` and `bottom` (it
// scrolls), `right` its right edge; shown while u.show_legend (L or --legend).
void legend_window(const std::vector<LegendGroup>& groups, UiState& u, float right, float top, float bottom);
// Every key and mouse action, over the middle of the window; shown while u.show_keys.
void key_help_window(UiState& u);

}  // namespace irqflow::gui
