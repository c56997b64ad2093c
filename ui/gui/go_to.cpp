#include "go_to.hpp"

#include <algorithm>

namespace irqflow::gui {

void go_to(const Session& s, UiState& u, std::int64_t ts, std::optional<std::size_t> event, bool keep_tab) {
    const ViewRange& v = u.nav.view();
    const std::int64_t span = std::min(v.t1 - v.t0, kGoToSpanNs);
    u.nav.set(ts - span / 2, ts - span / 2 + span);
    if (!event) {
        const std::size_t i = s.trace.events.lower_bound_ts(TimestampNs(ts));
        if (i < s.trace.events.size()) event = i;
    }
    // the inspector (and so the cursor) pinned at the target, on its event's vCPU when
    // it has one, else on the lane it already showed, else the first shown lane
    int lane = -1;
    if (event) {
        const Event e = s.trace.events[*event];
        lane = u.lanes(e.vm, e.vcpu);
    }
    if (lane < 0 || !u.filter.shows(lane)) lane = u.filter.shows(u.shown_lane) ? u.shown_lane : -1;
    for (std::size_t l = 0; lane < 0 && l < u.filter.lane_shown.size(); ++l)
        if (u.filter.lane_shown[l]) lane = static_cast<int>(l);
    u.shown_ts = ts;
    u.shown_lane = lane;
    u.states = s.index->at(ts);
    u.pinned = lane >= 0;
    u.selected_event = event;
    u.scroll_to_selected = event.has_value();
    if (event && !keep_tab) u.open_tab = "events";
}

}  // namespace irqflow::gui
