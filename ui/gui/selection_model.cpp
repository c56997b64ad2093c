#include "selection_model.hpp"

#include <algorithm>

#include "irqflow/capture/exit_reasons.hpp"
#include "percentile.hpp"

namespace irqflow::gui {

LatencySummary summarize(std::vector<std::int64_t> v) {
    LatencySummary out;
    out.samples = v.size();
    if (v.empty()) return out;
    std::sort(v.begin(), v.end());
    out.p50 = ui::percentile(v, 0.50);
    out.p99 = ui::percentile(v, 0.99);
    out.max = v.back();
    return out;
}

RangeStats range_stats(const Session& s, const LaneLookup& lanes, const Filter& f, std::int64_t a, std::int64_t b) {
    RangeStats r;
    r.t0 = std::min(a, b);
    r.t1 = std::max(a, b);
    const auto& ev = s.trace.events;
    for (std::size_t i = ev.lower_bound_ts(TimestampNs(r.t0)); i < ev.size() && ev.ts(i).value() <= r.t1; ++i) {
        const Event e = ev[i];
        if (!f.shows(lanes(e.vm, e.vcpu))) continue;
        ++r.events;
        if (e.kind != EventKind::Exit) continue;
        ++r.exits;
        ++r.exits_by_reason[exit_reason_key(e)];
    }
    for (std::size_t l = 0; l < s.tl.lanes.size(); ++l) {
        if (!f.shows(static_cast<int>(l))) continue;
        const Lane& lane = s.tl.lanes[l];
        auto band = std::lower_bound(lane.bands.begin(), lane.bands.end(), r.t0, [](const Band& x, std::int64_t t) { return x.end <= t; });
        for (; band != lane.bands.end() && band->start < r.t1; ++band)
            r.time_in_state[static_cast<std::size_t>(band->state)] += std::min(band->end, r.t1) - std::max(band->start, r.t0);
        auto m = std::lower_bound(lane.markers.begin(), lane.markers.end(), r.t0, [](const Marker& x, std::int64_t t) { return x.ts < t; });
        for (; m != lane.markers.end() && m->ts <= r.t1; ++m) {
            if (!f.shows_vector(m->vector)) continue;
            r.injections += m->kind == Marker::Injection;
            r.real_eois += m->kind == Marker::RealEoi;
            r.pv_eois += m->kind == Marker::PvEoi;
        }
    }
    auto arrow = std::lower_bound(s.tl.arrows.begin(), s.tl.arrows.end(), r.t0, [](const Arrow& x, std::int64_t t) { return x.ts < t; });
    for (; arrow != s.tl.arrows.end() && arrow->ts <= r.t1; ++arrow)
        r.ipis += f.shows(arrow->from_lane) && f.shows(arrow->to_lane) && f.shows_vector(arrow->vector);
    std::vector<std::int64_t> to_inject, to_eoi;
    for (const auto& ir : s.replay.interrupts) {
        if (!f.shows(lanes(ir.vm, ir.vcpu)) || !f.shows_vector(ir.vector) || !ir.inject_ts) continue;
        const bool injected_in = ir.inject_ts >= r.t0 && ir.inject_ts <= r.t1;
        if (injected_in && ir.accept_ts && ir.accept_ts <= ir.inject_ts) to_inject.push_back(ir.inject_ts - ir.accept_ts);
        if (ir.eoi_ts && ir.eoi_ts >= r.t0 && ir.eoi_ts <= r.t1 && ir.eoi_ts >= ir.inject_ts) to_eoi.push_back(ir.eoi_ts - ir.inject_ts);
    }
    r.accept_to_inject = summarize(std::move(to_inject));
    r.inject_to_eoi = summarize(std::move(to_eoi));
    for (const auto& fd : s.replay.findings) {
        if (fd.ts.value() < r.t0 || fd.ts.value() > r.t1) continue;
        const int lane = lanes(fd.vm, fd.vcpu);
        if (lane >= 0 && !f.shows(lane)) continue;
        ++r.findings_by_rule[std::string(replay::rule_info(fd.rule).id)];
    }
    return r;
}

}  // namespace irqflow::gui
