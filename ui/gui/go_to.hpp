// Going to a place in the trace (--goto, the "go" box, search matches, the inspector's
// links): the view zooms to it, the cursor is drawn there, the inspector is pinned there
// and the events tab selects and scrolls to its row. One function, so every way of
// getting somewhere leaves the window in the same state. No ImGui here.
#pragma once
#include <cstdint>
#include <optional>

#include "session.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

// How much the view shows around a target when it was wider: a few exits either side.
inline constexpr std::int64_t kGoToSpanNs = 200'000;

// Goes to `ts`; `event` (an index into s.trace.events) is the row to select when the
// target is an event, else the first event at or after ts is. The events tab comes to
// the front unless `keep_tab` (a link followed from another tab leaves it open).
void go_to(const Session& s, UiState& u, std::int64_t ts, std::optional<std::size_t> event = std::nullopt, bool keep_tab = false);

}  // namespace irqflow::gui
