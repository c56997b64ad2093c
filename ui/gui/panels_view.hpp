// The ImGui side of the panels below the timeline, one file per panel (ui/gui/README.md
// maps them): the navigation bar, the findings, statistics, latency, selection and
// events tabs, and the inspector. Each reads the session and changes only the UiState;
// what it shows is computed by its *_model file, without ImGui.
#pragma once
#include <cstdint>

#include "session.hpp"
#include "timeline_model.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// Keyboard navigation that is not plain zoom/pan: N/P findings, I/Shift+I injections,
// E/Shift+E EOIs (of the filter's vector), G focuses "go to" (navigation_view.cpp).
void jump_keys(const Session& s, UiState& u);

// The tabbed panel (navigation bar on top) in the rectangle given (panels_view.cpp).
void panels(const Session& s, UiState& u, float x, float y, float w, float h);

// Follows the mouse over the lanes (layout rows) and shows the APIC at that time
// (inspector_view.cpp).
void inspector(const Session& s, UiState& u, const Layout& layout, float x, float y, float w, float h);

// The parts of panels(), each in the file of its name.
void navigation_bar(const Session& s, UiState& u);
void findings_tab(const Session& s, UiState& u);
void statistics_tab(const Session& s, UiState& u);
void latency_tab(const Session& s, UiState& u);
void selection_tab(const Session& s, UiState& u);
void events_tab(const Session& s, UiState& u);

// What the panels print: seconds from the trace's nanoseconds, and %llu's type.
inline double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }
using ull = unsigned long long;

}  // namespace irqflow::gui
