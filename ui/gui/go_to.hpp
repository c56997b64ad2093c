// Going to a place in the trace (--goto, the "go" box, search matches, the inspector's
// links): the view zooms to it, the cursor is drawn there, the inspector is pinned there
// and the events tab selects and scrolls to its row. One function, so every way of
// getting somewhere leaves the window in the same state. No ImGui here.
#pragma once
#include <cstdint>
#include <optional>

#include "navigation_model.hpp"
#include "session.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// How much the view shows around a target when it was wider: a few exits either side.
inline constexpr std::int64_t kGoToSpanNs = 200'000;

// Goes to `ts`; `event` (an index into s.trace.events) is the row to select when the
// target is an event, else the first event at or after ts is. The events tab comes to
// the front unless `keep_tab` (a link followed from another tab leaves it open).
void go_to(const Session& s, UiState& u, std::int64_t ts, std::optional<std::size_t> event = std::nullopt, bool keep_tab = false);

// A record named in a panel (a finding's chain, the inspector's accept / inject / EOI):
// go there and select its row, leaving the panel where it is.
void go_to_record(const Session& s, UiState& u, std::uint64_t record);

// The next (or previous) finding, injection or EOI of the filter from the view's centre.
void jump(const Session& s, UiState& u, JumpTarget what, bool forward);

// The "go" box's text: "12.5s", "300ms", "#1234" (raw record) or a bare number of
// seconds; an error for the box otherwise.
void go_to_text(const Session& s, UiState& u);

// Runs the search box's query (when it changed) and goes to the next or previous match.
void search_step(const Session& s, UiState& u, bool forward);

}  // namespace irqflow::gui
