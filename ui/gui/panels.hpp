// The ImGui side of the panels below the timeline: navigation bar, findings,
// statistics, latency histograms, the event table of the visible range, and the
// inspector. Each reads the session and changes only the UiState.
#pragma once
#include "session.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// Keyboard navigation that is not plain zoom/pan: N/P findings, I/Shift+I injections,
// E/Shift+E EOIs (of the filter's vector), G focuses "go to".
void jump_keys(const Session& s, UiState& u);

// The tabbed panel (navigation bar on top) in the rectangle given.
void panels(const Session& s, UiState& u, float x, float y, float w, float h);

// Follows the mouse over the lanes (layout rows) and shows the APIC at that time.
void inspector(const Session& s, UiState& u, const Layout& layout, float x, float y, float w, float h);

}  // namespace irqflow::gui
