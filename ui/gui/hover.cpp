#include "hover.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "event_format.hpp"
#include "inspector_model.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "serial_labels.hpp"
#include "time_axis.hpp"

namespace irqflow::gui {
namespace {

std::string at(std::int64_t ts) { return seconds_text(ts, 1); }

std::string duration(std::int64_t ns) { return duration_text(ns); }

std::string vec(int v) {
    char b[8];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

// The element of a time-sorted array nearest to ts within [lo, hi], or null.
template <class T, class Ts>
const T* nearest(const std::vector<T>& v, std::int64_t ts, std::int64_t lo, std::int64_t hi, Ts key) {
    auto it = std::lower_bound(v.begin(), v.end(), lo, [&](const T& x, std::int64_t t) { return key(x) < t; });
    const T* best = nullptr;
    for (; it != v.end() && key(*it) <= hi; ++it)
        if (!best || std::llabs(key(*it) - ts) < std::llabs(key(*best) - ts)) best = &*it;
    return best;
}

// The trace's event of `kind` on the lane's vCPU at exactly ts.
const Event* event_at(const Session& s, const Lane& lane, EventKind kind, std::int64_t ts, Event& out) {
    for (std::size_t i = s.trace.events.lower_bound_ts(TimestampNs(ts)); i < s.trace.events.size() && s.trace.events.ts(i).value() == ts; ++i) {
        out = s.trace.events[i];
        if (out.kind == kind && out.vm == lane.vm && out.vcpu == lane.vcpu) return &out;
    }
    return nullptr;
}

const char* state_name(VcpuState st) { return st == VcpuState::Guest ? "in the guest" : st == VcpuState::Host ? "in the host" : "halted"; }

}  // namespace

std::vector<std::string> hover_lines(const Session& s, const Filter& filter, const VectorLayers* only, const Layout& L, float x, float y) {
    std::vector<std::string> out;
    if (x < Layout::kGutter || x > L.width || L.t1 <= L.t0) return out;
    const Timeline& tl = s.tl;
    const double ns_per_px = static_cast<double>(L.t1 - L.t0) / (L.width - Layout::kGutter);
    const std::int64_t ts = L.t0 + static_cast<std::int64_t>((x - Layout::kGutter) * ns_per_px);
    const auto slack = static_cast<std::int64_t>(kHoverSlackPx * ns_per_px);
    const std::int64_t lo = ts - slack, hi = ts + slack;
    const auto rows = filter.rows();
    const int nrows = filter.row_count();
    // findings: a red bar through the lane (or all lanes)
    const int row = L.row_at(y);
    if (row >= 0 && row < nrows) {
        // the timeline's marks are the replay's findings, in order, with their lanes
        for (std::size_t i = 0; i < tl.findings.size() && i < s.replay.findings.size(); ++i) {
            const FindingMark& mark = tl.findings[i];
            if (mark.ts < lo || mark.ts > hi || (mark.lane >= 0 && rows[static_cast<std::size_t>(mark.lane)] != row)) continue;
            const auto& f = s.replay.findings[i];
            out.push_back("finding " + std::string(replay::rule_info(f.rule).id) + " at " + at(f.ts.value()) + ", record " + std::to_string(f.record));
            out.push_back("expected " + f.expected);
            out.push_back("observed " + f.observed);
            return out;
        }
        // a lost-event gap, over every lane
        auto g = std::lower_bound(tl.gaps.begin(), tl.gaps.end(), lo, [](const LostGap& gap, std::int64_t t) { return gap.end < t; });
        for (; g != tl.gaps.end(); ++g) {  // by end; a long gap may start before shorter ones
            if (g->start > hi) continue;
            out.push_back("lost events on host CPU " + std::to_string(g->cpu) + ": " +
                          (g->lost >= 0 ? std::to_string(g->lost) : std::string("an unknown number of")) + " events");
            out.push_back("somewhere between " + at(g->start) + " (the CPU's previous event) and " + at(g->end) + " (the marker)");
            out.push_back("every vCPU is unsynced from " + at(g->start) + " until the trace proves its state again");
            return out;
        }
    }
    // the serial row below the lanes
    const float sy = L.serial_y(nrows);
    if (y >= sy && y <= sy + 14) {
        // the line whose tick is at or left of the pointer: its label runs from the tick
        // to the next one (serial_labels.hpp), cut short there, so this shows it whole
        auto m = std::upper_bound(tl.serial.begin(), tl.serial.end(), hi, [](std::int64_t t, const SerialMark& sm) { return t < sm.ts; });
        if (m != tl.serial.begin() && (--m)->ts >= L.t0) {
            out.push_back("serial at " + at(m->ts));
            out.push_back(display_text(m->text));
        }
        return out;
    }
    if (row < 0 || row >= nrows) return out;
    const auto lane_it = std::find(rows.begin(), rows.end(), row);
    if (lane_it == rows.end()) return out;
    const int li = static_cast<int>(lane_it - rows.begin());
    const Lane& lane = tl.lanes[static_cast<std::size_t>(li)];
    char who[48];
    std::snprintf(who, sizeof who, "vm%d/vcpu%d", lane.vm.value(), lane.vcpu.value());
    const float ly = y;
    if (ly >= L.band_y(row) && ly < L.band_y(row) + L.band_height()) {
        // IPIs start and end on the band: one sent or received here comes first
        const auto& arrows = only ? only->arrows : tl.arrows;
        if (const auto* a = nearest(arrows, ts, lo, hi, [](const Arrow& ar) { return ar.ts; });
            a && (a->from_lane == li || a->to_lane == li)) {
            const auto& from = tl.lanes[static_cast<std::size_t>(a->from_lane)];
            const auto& to = tl.lanes[static_cast<std::size_t>(a->to_lane)];
            char b[160];
            std::snprintf(b, sizeof b, "IPI %s from vcpu%d to vcpu%d at %s (%s)", vec(a->vector).c_str(), from.vcpu.value(), to.vcpu.value(),
                          at(a->ts).c_str(), a->pv ? "PV IPI hypercall" : "ICR write or Hyper-V");
            out.push_back(b);
            return out;
        }
        auto it = std::upper_bound(lane.bands.begin(), lane.bands.end(), ts, [](std::int64_t t, const Band& b) { return t < b.start; });
        if (it == lane.bands.begin()) return out;
        --it;
        if (it->end < ts) return out;
        out.push_back(std::string(who) + " " + state_name(it->state) + " for " + duration(it->end - it->start));
        out.push_back("from " + at(it->start) + " to " + at(it->end));
        return out;
    }
    if (ly >= L.tick_y(row) && ly < L.tick_y(row) + L.tick_height()) {
        const auto* tick = nearest(lane.exits, ts, lo, hi, [](const ExitTick& e) { return e.ts; });
        Event e;
        if (!tick || !event_at(s, lane, EventKind::Exit, tick->ts, e)) return out;
        std::string line = std::string(who) + " exit " + exit_reason_key(e) + " at " + at(e.ts.value());
        auto band = std::lower_bound(lane.bands.begin(), lane.bands.end(), tick->ts, [](const Band& b, std::int64_t t) { return b.start < t; });
        if (band != lane.bands.end() && band->start == tick->ts) line += ", " + duration(band->end - band->start) + " until the next entry";
        out.push_back(line);
        // the fields, a few to a line
        std::string fields = "record " + std::to_string(e.record) + ":", word;
        const std::string text = ui::event_fields_text(s.trace, e);
        for (std::size_t p = 0; p <= text.size(); ++p) {
            if (p < text.size() && text[p] != ' ') {
                word += text[p];
                continue;
            }
            if (fields.size() + word.size() > 72) out.push_back(std::exchange(fields, "  "));
            fields += " " + word;
            word.clear();
        }
        out.push_back(fields);
        return out;
    }
    for (int depth = 1; depth <= 3; ++depth) {
        const float by = L.isr_y(row, depth);
        if (ly < by || ly >= by + L.isr_row() - 2) continue;
        const auto& bars = (only ? only->isr_by_depth[static_cast<std::size_t>(li)] : lane.isr_by_depth)[static_cast<std::size_t>(depth - 1)];
        for (const auto& bar : bars) {  // by start; the bar covering ts (or within the slack)
            if (bar.start > hi) break;
            if (bar.end < lo) continue;
            const auto* ir = interrupt_in_service(s.replay, lane.vm, lane.vcpu, bar.vector, std::clamp(ts, bar.start, bar.end));
            out.push_back(std::string(who) + " " + vec(bar.vector) + " in service, nesting depth " + std::to_string(depth));
            if (ir) {
                if (ir->accept_ts) out.push_back("accepted " + at(ir->accept_ts) + " (record " + std::to_string(ir->accept_record) + ")");
                out.push_back("injected " + at(ir->inject_ts) + (ir->accept_ts ? ", " + duration(ir->inject_ts - ir->accept_ts) + " after the accept" : std::string()));
                if (ir->eoi_ts)
                    out.push_back("EOI " + at(ir->eoi_ts) + ", " + duration(ir->eoi_ts - ir->inject_ts) + " after the injection" +
                                  (ir->eoi_path ? std::string(", via ") + replay::to_string(*ir->eoi_path) : std::string()));
                else
                    out.push_back("no EOI in the trace");
            }
            return out;
        }
        return out;
    }
    const float my = L.isr_y(row, 4);
    if (ly >= my && ly < my + 8) {
        const auto& markers = only ? only->markers[static_cast<std::size_t>(li)] : lane.markers;
        if (const auto* m = nearest(markers, ts, lo, hi, [](const Marker& mk) { return mk.ts; })) {
            const char* what = m->kind == Marker::Injection         ? "injection of "
                               : m->kind == Marker::NestedInjection ? "L1 injects into L2: "
                               : m->kind == Marker::RealEoi         ? "EOI (exits) of "
                                                                    : "PV EOI (no exit) of ";
            out.push_back(std::string(who) + " " + what + vec(m->vector) + " at " + at(m->ts));
        }
        return out;
    }
    const float gy = L.guest_y(row);
    if (L.guest && ly >= gy && ly < gy + L.guest_height()) {  // the guest's handlers (guest_spans.hpp)
        const int vector = only ? only->vector : -1;
        const GuestSpan* hit = nullptr;
        const auto& spans = lane.guest;
        const std::size_t from = lane.guest_index.lower(lo);
        // the innermost under the pointer: a span starting there, else one from before still running
        for (std::size_t i = from; i < spans.size() && spans[i].start <= hi; ++i)
            if (vector < 0 || spans[i].vector == vector) hit = &spans[i];
        constexpr std::size_t kLookBack = 64;  // handlers nest a few deep: one running at lo began a few spans back
        for (std::size_t i = from; !hit && i > 0 && from - i < kLookBack; --i)
            if (spans[i - 1].end >= lo && (vector < 0 || spans[i - 1].vector == vector)) hit = &spans[i - 1];
        if (hit) {
            out.push_back(std::string(who) + " guest handler " + tl.guest_names[hit->name] + (hit->vector >= 0 ? " (" + vec(hit->vector) + ")" : ""));
            out.push_back("entered " + at(hit->start) + (hit->inject_ts ? ", " + duration(hit->start - hit->inject_ts) + " after the injection" : std::string()));
            out.push_back("ran " + duration(hit->end - hit->start));
        }
    }
    return out;
}

}  // namespace irqflow::gui
