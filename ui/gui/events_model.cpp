#include "events_model.hpp"

namespace irqflow::gui {

EventRows events_in_view(const Trace& trace, const LaneLookup& lanes, const Filter& f, const ViewRange& v, std::size_t limit) {
    const auto& ev = trace.events;
    EventRows rows;
    rows.first = static_cast<std::size_t>(
        std::lower_bound(ev.begin(), ev.end(), v.t0, [](const Event& e, std::int64_t t) { return e.ts.value() < t; }) - ev.begin());
    rows.last = static_cast<std::size_t>(
        std::upper_bound(ev.begin(), ev.end(), v.t1, [](std::int64_t t, const Event& e) { return t < e.ts.value(); }) - ev.begin());
    rows.last = std::max(rows.first, rows.last);
    rows.in_view = rows.last - rows.first;
    const bool every_lane = std::all_of(f.lane_shown.begin(), f.lane_shown.end(), [](bool b) { return b; });
    rows.filtered = !every_lane || f.vector >= 0;
    if (!rows.filtered) return rows;
    if (rows.in_view > limit) {
        rows.too_many = true;
        return rows;
    }
    for (std::size_t i = rows.first; i < rows.last; ++i) {
        const Event& e = ev[i];
        if (!every_lane && !f.shows(lanes(e.vm, e.vcpu))) continue;
        if (f.vector >= 0 && event_vector(e) != f.vector) continue;
        rows.picked.push_back(i);
    }
    return rows;
}

}  // namespace irqflow::gui
