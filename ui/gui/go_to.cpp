#include "go_to.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "search_model.hpp"

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

void go_to_record(const Session& s, UiState& u, std::uint64_t record) {
    if (const auto i = event_of_record(s.trace, record)) go_to(s, u, s.trace.events.ts(*i).value(), i, true);
}

void jump(const Session& s, UiState& u, JumpTarget what, bool forward) {
    const auto& v = u.nav.view();
    if (const auto ts = find_next(s.tl, u.filter, what, v.t0 + (v.t1 - v.t0) / 2, forward)) u.nav.centre_on(*ts);
}

void go_to_text(const Session& s, UiState& u) {
    const std::string t = u.goto_text;
    const auto target = go_to_target(s.trace, t);
    u.goto_error.clear();
    if (!target) u.goto_error = !t.empty() && t[0] == '#' ? "no record " + t : "a time (12.5s, 300ms, 17us) or #record";
    else go_to(s, u, target->ts, target->event);
}

void search_step(const Session& s, UiState& u, bool forward) {
    if (u.searched != u.search_text) {
        u.searched = u.search_text;
        u.search_error.clear();
        u.matches = EventRows{};
        u.match.reset();
        const auto terms = parse_search(s, u.searched, u.search_error);
        if (!terms) return;
        u.matches.filtered = true;
        u.matches.picked = search_events(s, *terms);
        if (u.print_view) std::printf("search %s: %zu matches\n", u.searched.c_str(), u.matches.picked.size());
    }
    const auto& v = u.nav.view();
    const auto next = step_match(s.trace, u.matches.picked, u.match, v.t0 + (v.t1 - v.t0) / 2, forward);
    if (!next) return;  // no match that way: stay on the current one
    u.match = next;
    const std::size_t i = u.matches.picked[*next];
    go_to(s, u, s.trace.events.ts(i).value(), i);
    if (u.print_view) std::printf("match %zu record %llu\n", *next, static_cast<unsigned long long>(s.trace.events.record(i)));
}

}  // namespace irqflow::gui
