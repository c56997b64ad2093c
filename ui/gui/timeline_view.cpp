#include "timeline_view.hpp"

#include "column_runs.hpp"
#include "guest_spans_view.hpp"
#include "serial_labels.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

namespace irqflow::gui {
namespace {

// First index at or after `from` whose element is no longer `before` the position
// sought. Successive pixel columns seek nearby positions, so galloping from the
// previous column's answer touches a few cached elements where a binary search over
// the whole array would miss the cache ~20 times (10 M events: 5.8 → see README).
template <class T, class Before>
std::size_t gallop(const std::vector<T>& v, std::size_t from, Before before) {
    if (from >= v.size() || !before(v[from])) return from;
    std::size_t lo = from + 1, hi = from + 1, step = 1;
    while (hi < v.size() && before(v[hi])) {
        lo = hi + 1;
        step *= 2;
        hi = from + step;
    }
    hi = std::min(hi, v.size());
    return static_cast<std::size_t>(std::partition_point(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi), before) -
                                    v.begin());
}

template <class T>
std::size_t first_at_or_after(const std::vector<T>& v, std::int64_t ts) {
    return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), ts, [](const T& a, std::int64_t t) { return a.ts < t; }) - v.begin());
}

}  // namespace

void draw_time_axis(ImDrawList* dl, const TimeAxis& axis, const Layout& L, float ox, float oy, float lanes_bottom, const std::vector<Span>& taken) {
    constexpr std::uint32_t kText = 0xffdcdcdc, kTick = 0xff8c8c8c, kGrid = 0x28ffffff;
    dl->AddText(ImVec2(ox + 4, oy + 4), kText, axis.base.c_str());
    std::vector<float> tick_x, width;
    for (const auto& t : axis.ticks) {
        tick_x.push_back(ox + L.x(t.ts));
        width.push_back(ImGui::CalcTextSize(t.label.c_str()).x);
    }
    const auto label_x = tick_label_x(tick_x, width, ox + 4 + ImGui::CalcTextSize(axis.base.c_str()).x, ox + L.width, taken);
    for (std::size_t i = 0; i < axis.ticks.size(); ++i) {
        const float x = tick_x[i];
        if (x < ox + Layout::kGutter) continue;
        dl->AddLine(ImVec2(x, oy + Layout::kTop - 6), ImVec2(x, oy + Layout::kTop), kTick);
        dl->AddLine(ImVec2(x, oy + Layout::kTop), ImVec2(x, lanes_bottom), kGrid);  // a faint grid line through the lanes
        if (label_x[i]) dl->AddText(ImVec2(*label_x[i], oy + 4), kText, axis.ticks[i].label.c_str());
    }
}

void draw_timeline(ImDrawList* dl, const Timeline& tl, const Filter& filter, const VectorLayers* only, const Layout& L, float ox,
                   float oy, ColumnImage* strips, const ViewMarks& marks) {
    // no background quad: the window is cleared to kBackground, and a software
    // rasteriser spends most of a frame shading pixels (a full-window quad doubled it)
    const int columns = static_cast<int>(L.width - Layout::kGutter);
    if (columns <= 0) return;
    const double ns_per_px = static_cast<double>(L.t1 - L.t0) / columns;
    char label[64];
    const std::vector<int> row = filter.rows();
    const int rows = filter.row_count();
    auto row_of = [&](int lane) { return lane >= 0 && static_cast<std::size_t>(lane) < row.size() ? row[static_cast<std::size_t>(lane)] : -1; };
    // markers A and B in the axis row: a flag each, and with both their distance between
    // them; placed first, so no tick label is drawn under them
    struct Flag {
        std::int64_t ts;
        std::uint32_t colour;
        const char* name;
    };
    std::vector<Flag> flags;
    for (const Flag& f : {Flag{marks.mark_a, kMarkAColor, "A"}, Flag{marks.mark_b, kMarkBColor, "B"}})
        if (f.ts >= L.t0 && f.ts <= L.t1) flags.push_back(f);
    std::vector<Span> taken;
    for (const Flag& f : flags) taken.emplace_back(ox + L.x(f.ts) - 5, ox + L.x(f.ts) + 5);
    std::string delta;
    float delta_x = 0, xa = 0, xb = 0;
    if (marks.mark_a >= 0 && marks.mark_b >= 0) {
        xa = std::clamp(ox + L.x(std::min(marks.mark_a, marks.mark_b)), ox + Layout::kGutter, ox + L.width);
        xb = std::clamp(ox + L.x(std::max(marks.mark_a, marks.mark_b)), ox + Layout::kGutter, ox + L.width);
        delta = "B-A " + std::string(marks.mark_b >= marks.mark_a ? "+" : "") + duration_text(marks.mark_b - marks.mark_a);
        const float w = ImGui::CalcTextSize(delta.c_str()).x;
        delta_x = std::clamp((xa + xb - w) / 2, ox + Layout::kGutter, ox + L.width - w - 2);
        taken.emplace_back(delta_x - 2, delta_x + w + 2);
    }
    // the axis first: its grid lines lie behind everything drawn in the lanes
    draw_time_axis(dl, time_axis(L.t0, L.t1, tl.t0, L.width - Layout::kGutter, !marks.absolute_time), L, ox, oy, oy + L.lane_top(rows), taken);
    for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
        const auto& lane = tl.lanes[li];
        const int l = row[li];
        if (l < 0) continue;
        const auto& isr_by_depth = only ? only->isr_by_depth[li] : lane.isr_by_depth;
        const auto& markers = only ? only->markers[li] : lane.markers;
        std::snprintf(label, sizeof label, "vm%d/vcpu%d", lane.vm.value(), lane.vcpu.value());
        dl->AddText(ImVec2(ox + 4, oy + L.band_y(l)), 0xffdcdcdc, label);
        // a rule under the lane's marker row: what lies between two rules is one vCPU's
        const float rule_y = oy + L.lane_top(l + 1) - 2;
        dl->AddLine(ImVec2(ox, rule_y), ImVec2(ox + L.width, rule_y), kLaneRuleColor);
        // bands: per pixel column, the state that covers most of it, from prefix sums
        ColumnRuns band_runs(dl, oy + L.band_y(l), oy + L.band_y(l) + L.band_height(), strips);
        const auto& B = lane.bands;
        std::size_t bi = 0, bj = 0;
        // a column 8 or more grid steps wide takes its times from the grid: its edges move
        // by at most 1/8 of a pixel, and nothing is searched (timeline.hpp, StateGrid)
        const bool bands_from_grid = ns_per_px >= 8.0 * static_cast<double>(lane.state_grid.step_ns());
        for (int c = 0; c < columns; ++c) {
            const auto ta = L.t0 + static_cast<std::int64_t>(c * ns_per_px), tb = L.t0 + static_cast<std::int64_t>((c + 1) * ns_per_px);
            if (bands_from_grid) {
                const auto &from = lane.state_grid.before(ta), &to = lane.state_grid.before(tb);
                const std::array<std::int64_t, 3> cover{to[0] - from[0], to[1] - from[1], to[2] - from[2]};
                if (cover[0] + cover[1] + cover[2] <= 0) continue;  // no band in the column
                const auto s = static_cast<VcpuState>(std::max_element(cover.begin(), cover.end()) - cover.begin());
                band_runs.put(ox + Layout::kGutter + static_cast<float>(c), state_color(s));
                continue;
            }
            // bands [i, j) overlap the column
            // (bands do not overlap: the one before the first starting at ta or later is the
            // earliest that can still reach past ta)
            bi = gallop(B, std::max(bi, std::max<std::size_t>(lane.band_index.lower(ta), 1) - 1), [ta](const Band& b) { return b.end <= ta; });
            bj = gallop(B, std::max({bi, bj, lane.band_index.lower(tb)}), [tb](const Band& b) { return b.start < tb; });
            const std::size_t i = bi, j = bj;
            if (i >= j) continue;
            std::array<std::int64_t, 3> cover = lane.time_before(j);
            const auto before = lane.time_before(i);
            for (std::size_t k = 0; k < 3; ++k) cover[k] -= before[k];
            // trim the first and last band to the column
            cover[static_cast<std::size_t>(B[i].state)] -= std::max<std::int64_t>(0, ta - B[i].start);
            cover[static_cast<std::size_t>(B[j - 1].state)] -= std::max<std::int64_t>(0, B[j - 1].end - tb);
            const auto s = static_cast<VcpuState>(std::max_element(cover.begin(), cover.end()) - cover.begin());
            band_runs.put(ox + Layout::kGutter + static_cast<float>(c), state_color(s));
        }
        // exits: a tick in every column that has one, coloured by the reason of its first
        // exit; when there are more than two per column on average, the reasons would be
        // noise, so the strip shows how many there are instead (four shades of grey)
        ColumnRuns tick_runs(dl, oy + L.tick_y(l), oy + L.tick_y(l) + L.tick_height(), strips);
        const std::size_t exits_from = first_at_or_after(lane.exits, L.t0);
        const bool exit_density = first_at_or_after(lane.exits, L.t1 + 1) - exits_from > 2 * static_cast<std::size_t>(columns);
        // counted on the index's grid when a column spans 8 or more of its steps (as bands)
        const bool exits_from_grid = exit_density && ns_per_px >= 8.0 * static_cast<double>(lane.exit_index.step_ns());
        std::size_t e = exits_from_grid ? lane.exit_index.lower(L.t0) : exits_from;
        for (int c = 0; c < columns; ++c) {
            const auto tb = L.t0 + static_cast<std::int64_t>((c + 1) * ns_per_px);
            const std::size_t next = exits_from_grid ? lane.exit_index.lower(tb)
                                                     : gallop(lane.exits, std::max(e, lane.exit_index.lower(tb)), [tb](const ExitTick& x) { return x.ts < tb; });
            const std::size_t n = next - e;  // exits in this column
            if (n > 0) {
                const std::uint32_t colour = !exit_density ? lane.exits[e].color
                                                         : exit_density_color(static_cast<double>(n));
                tick_runs.put(ox + Layout::kGutter + static_cast<float>(c), colour);
            }
            e = next;
        }
        // ISR: stacked bars by nesting depth, coloured by vector, labelled when wide; a
        // bar narrower than a pixel is drawn once per column
        for (int depth = 1; depth <= 3; ++depth) {
            const auto& bars = isr_by_depth[static_cast<std::size_t>(depth - 1)];
            const float y = oy + L.isr_y(l, depth);
            // the last bar starting before the view may still cover it
            auto it = std::lower_bound(bars.begin(), bars.end(), L.t0, [](const IsrBar& b, std::int64_t t) { return b.start < t; });
            if (it != bars.begin()) --it;
            float last_x = -1;
            ColumnRuns narrow(dl, y, y + L.isr_row() - 2, strips);  // sub-pixel bars, merged when neighbours share a vector
            for (; it != bars.end() && it->start <= L.t1; ++it) {
                if (it->end < L.t0) continue;
                const float x0 = std::max(ox + Layout::kGutter, ox + L.x(it->start));
                const float x1 = std::max(x0 + 1, std::min(ox + L.width, ox + L.x(it->end)));
                if (x1 - x0 <= 1 && std::floor(x0) == last_x) {
                    // another sub-pixel bar in this column: jump to the first bar of the next one
                    const auto next_col = L.t0 + static_cast<std::int64_t>((static_cast<double>(last_x - ox - Layout::kGutter) + 1) * ns_per_px);
                    const std::size_t from = static_cast<std::size_t>(it - bars.begin()) + 1;
                    const std::size_t next = gallop(bars, only ? from : std::max(from, lane.isr_index[static_cast<std::size_t>(depth - 1)].lower(next_col)),
                                                    [next_col](const IsrBar& b) { return b.start < next_col; });
                    if (next == bars.size()) break;
                    const auto skip = bars.begin() + static_cast<std::ptrdiff_t>(next);
                    it = skip - 1;  // the loop's ++it lands on skip, always past the current bar
                    continue;
                }
                last_x = std::floor(x0);
                if (x1 - x0 <= 1) {
                    narrow.put(last_x, vector_color(it->vector));
                    continue;
                }
                dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + L.isr_row() - 2), vector_color(it->vector));
                if (x1 - x0 > 34) {
                    std::snprintf(label, sizeof label, "0x%02x", it->vector);
                    dl->AddText(ImVec2(x0 + 2, y - 2), 0xff000000, label);
                }
            }
        }
        if (L.guest) draw_guest_spans(dl, tl, lane, L, ox, oy, l, only ? only->vector : -1, strips);
        // injections (down triangles; hollow pink: L1 into L2) and EOIs: real EOI a bar, PV EOI a hollow diamond.
        // When they would crowd (more than one per 4 pixels), two density strips instead:
        // injections (white) above EOIs (yellow real, blue PV), from the first few
        // markers of each column.
        const float my = oy + L.isr_y(l, 4);
        const std::size_t in_view = first_at_or_after(markers, L.t1 + 1) - first_at_or_after(markers, L.t0);
        if (in_view * 4 > static_cast<std::size_t>(columns)) {
            ColumnRuns inj(dl, my, my + 2, strips), eoi(dl, my + 3, my + 5, strips);
            std::size_t m = 0;
            for (int c = 0; c < columns; ++c) {
                const auto ta = L.t0 + static_cast<std::int64_t>(c * ns_per_px), tb = L.t0 + static_cast<std::int64_t>((c + 1) * ns_per_px);
                bool injected = false;
                std::uint32_t eoi_colour = 0;
                m = gallop(markers, only ? m : std::max(m, lane.marker_index.lower(ta)), [ta](const Marker& x) { return x.ts < ta; });
                std::size_t i = m;
                for (int seen = 0; i < markers.size() && markers[i].ts < tb && seen < 8; ++i, ++seen) {
                    if (!markers[i].eoi()) injected = true;
                    else if (!eoi_colour) eoi_colour = markers[i].kind == Marker::RealEoi ? kRealEoiColor : kPvEoiColor;
                }
                const float x = ox + Layout::kGutter + static_cast<float>(c);
                if (injected) inj.put(x, kInjectionColor);
                if (eoi_colour) eoi.put(x, eoi_colour);
            }
        } else {
            for (std::size_t i = first_at_or_after(markers, L.t0); i < markers.size() && markers[i].ts <= L.t1; ++i) {
                const auto& m = markers[i];
                const float x = ox + L.x(m.ts);
                if (m.kind == Marker::Injection) dl->AddTriangleFilled(ImVec2(x - 3, my), ImVec2(x + 3, my), ImVec2(x, my + 5), kInjectionColor);
                else if (m.kind == Marker::NestedInjection)  // hollow: an event L1 injects into L2
                    dl->AddTriangle(ImVec2(x - 3, my), ImVec2(x + 3, my), ImVec2(x, my + 5), kNestedInjectionColor);
                else if (m.kind == Marker::RealEoi) dl->AddLine(ImVec2(x, my), ImVec2(x, my + 6), kRealEoiColor, 2);
                else dl->AddQuad(ImVec2(x, my), ImVec2(x + 3, my + 3), ImVec2(x, my + 6), ImVec2(x - 3, my + 3), kPvEoiColor);
            }
        }
    }
    // IPIs: lines from the sender lane to each receiver (PV IPI cyan, ICR/Hyper-V
    // magenta), one per column and lane pair. When there are more IPIs than half the
    // columns, lines would paint the lanes over: each sender lane gets a 2-pixel strip at
    // its top instead, in the colour of the column's first sends.
    const auto& arrows = only ? only->arrows : tl.arrows;
    const bool ipi_density = first_at_or_after(arrows, L.t1 + 1) - first_at_or_after(arrows, L.t0) > static_cast<std::size_t>(columns) / 2;
    // vectors beside the arrowheads only where there is room for them: a label is ~30 px
    const bool ipi_labels = !ipi_density && first_at_or_after(arrows, L.t1 + 1) - first_at_or_after(arrows, L.t0) <= static_cast<std::size_t>(columns) / 40;
    std::vector<float> label_free(static_cast<std::size_t>(std::max(rows, 0)), 0.0f);  // per receiver row: where its last label ends
    std::deque<ColumnRuns> sends;  // per row, dense mode only
    if (ipi_density)
        for (int r = 0; r < rows; ++r) sends.emplace_back(dl, oy + L.lane_top(r), oy + L.lane_top(r) + 2, strips);
    std::size_t a0 = 0;
    for (int c = 0; c < columns; ++c) {
        const auto ta = L.t0 + static_cast<std::int64_t>(c * ns_per_px), tb = L.t0 + static_cast<std::int64_t>((c + 1) * ns_per_px);
        std::uint32_t drawn = 0;  // bit per (from, to) pair among the first 32, or per sender row
        a0 = gallop(arrows, only ? a0 : std::max(a0, tl.arrow_index.lower(ta)), [ta](const Arrow& x) { return x.ts < ta; });
        for (std::size_t i = a0; i < arrows.size() && arrows[i].ts < tb && i < a0 + 32; ++i) {
            const auto& a = arrows[i];
            const int from = row_of(a.from_lane), to = row_of(a.to_lane);
            if (from < 0 || to < 0) continue;
            const std::uint32_t colour = a.pv ? kPvIpiColor : kIcrIpiColor;
            if (ipi_density) {
                if (drawn & (1u << (from & 31))) continue;
                drawn |= 1u << (from & 31);
                sends[static_cast<std::size_t>(from)].put(ox + Layout::kGutter + static_cast<float>(c), colour | 0xff000000u);
                continue;
            }
            const std::uint32_t bit = 1u << ((a.from_lane * 8 + a.to_lane) & 31);
            if (drawn & bit) continue;
            drawn |= bit;
            const float x = ox + L.x(a.ts);
            const float y0 = oy + L.band_y(from) + 5, y1 = oy + L.band_y(to) + 5;
            dl->AddLine(ImVec2(x, y0), ImVec2(x + 2, y1), colour);
            // an arrowhead on the receiver's band, and the vector beside it when IPIs are sparse
            const float dir = y1 >= y0 ? 1.0f : -1.0f, tip = y1 - dir * 2;
            dl->AddTriangleFilled(ImVec2(x - 2, tip - dir * 7), ImVec2(x + 6, tip - dir * 7), ImVec2(x + 2, tip), colour | 0xff000000u);
            if (ipi_labels && x + 7 >= label_free[static_cast<std::size_t>(to)]) {  // not over the receiver's previous label
                std::snprintf(label, sizeof label, "0x%02x", a.vector);
                dl->AddText(ImVec2(x + 7, tip - dir * 7 - (dir > 0 ? 6 : 8)), colour | 0xff000000u, label);
                label_free[static_cast<std::size_t>(to)] = x + 9 + ImGui::CalcTextSize(label).x;
            }
        }
    }
    sends.clear();  // the strips go out before the findings are drawn over them
    // unsynced stretches: a faint wash over the lane and an amber strip under it, spans
    // closer than a pixel merged into one rectangle
    for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
        const int l = row[li];
        const auto& spans = tl.lanes[li].unsynced;
        if (l < 0 || spans.empty()) continue;
        const float y0 = oy + L.lane_top(l), y1 = oy + L.unsynced_y(l);
        float run0 = -1, run1 = -1;
        auto flush = [&] {
            if (run1 <= run0) return;
            dl->AddRectFilled(ImVec2(run0, y0), ImVec2(run1, y1), kUnsyncedShade);
            dl->AddRectFilled(ImVec2(run0, y1), ImVec2(run1, y1 + 2), kUnsyncedColor);
        };
        // spans of one vCPU do not overlap: by start is by end too
        auto it = std::lower_bound(spans.begin(), spans.end(), L.t0, [](const Lane::Span& sp, std::int64_t t) { return sp.end < t; });
        for (; it != spans.end() && it->start <= L.t1; ++it) {
            const float x0 = std::max(ox + Layout::kGutter, ox + L.x(it->start));
            const float x1 = std::min(ox + L.width, std::max(x0 + 1, ox + L.x(it->end)));
            if (x0 <= run1 + 1) {
                run1 = std::max(run1, x1);
                continue;
            }
            flush();
            run0 = x0;
            run1 = x1;
        }
        flush();
    }
    // lost-event gaps: hatched over every lane, since from a gap's start every vCPU is
    // unsynced (replay/README.md); at least two pixels wide, so a short one still shows
    auto gap = std::lower_bound(tl.gaps.begin(), tl.gaps.end(), L.t0, [](const LostGap& g, std::int64_t t) { return g.end < t; });
    float drawn_x0 = -1, drawn_x1 = -1;
    for (; gap != tl.gaps.end() && rows > 0; ++gap) {  // by end; a long gap may start before shorter ones
        if (gap->start > L.t1) continue;
        const float x0 = std::max(ox + Layout::kGutter, ox + L.x(gap->start));
        const float x1 = std::min(ox + L.width, std::max(x0 + 2, ox + L.x(gap->end)));
        if (x0 >= drawn_x0 && x1 <= drawn_x1) continue;  // inside the one drawn last
        drawn_x0 = x0;
        drawn_x1 = x1;
        for (int r = 0; r < rows; ++r) {
            const float y0 = oy + L.lane_top(r), y1 = y0 + L.lane_height - 4;
            dl->AddRect(ImVec2(x0, y0), ImVec2(x1, y1), kLostColor);
            dl->PushClipRect(ImVec2(x0, y0), ImVec2(x1, y1), true);
            for (float hx = x0 - (y1 - y0); hx < x1; hx += 8) dl->AddLine(ImVec2(hx, y1), ImVec2(hx + (y1 - y0), y0), kLostColor);
            dl->PopClipRect();
        }
    }
    // findings: red markers through the lane (or all lanes)
    for (const auto& f : tl.findings) {
        if (f.ts < L.t0 || f.ts > L.t1 || (f.lane >= 0 && row_of(f.lane) < 0)) continue;
        const float x = ox + L.x(f.ts);
        const int r = row_of(f.lane);
        const float y0 = oy + (r >= 0 ? L.lane_top(r) : Layout::kTop);
        const float y1 = r >= 0 ? y0 + L.lane_height - 4 : oy + L.lane_top(rows);
        dl->AddRectFilled(ImVec2(x - 1, y0), ImVec2(x + 2, y1), kFindingColor);
    }
    // the guest's serial lines at their host time, each text cut to end before the next
    // line's tick (serial_labels.hpp; the tooltip shows it whole)
    const float sy = oy + L.serial_y(rows);
    dl->AddText(ImVec2(ox + 4, sy), 0xffdcdcdc, "serial");
    float last_tick = -1;
    const TextWidth width = [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; };
    for (const auto& sl : serial_labels(tl.serial, L, width)) {
        const float x = ox + sl.x;
        if (std::floor(x) != last_tick) dl->AddLine(ImVec2(x, sy), ImVec2(x, sy + 14), 0xffdcdcdc);  // one tick per column
        last_tick = std::floor(x);
        if (!sl.text.empty()) dl->AddText(ImVec2(x + kSerialTextGap, sy), 0xffdcdcdc, sl.text.c_str());
    }
    // markers A and B: a shade between them, a line each, and the distance in the axis row
    const float lanes_bottom = oy + L.lane_top(rows);
    if (!delta.empty()) {
        if (xb > xa) dl->AddRectFilled(ImVec2(xa, oy + Layout::kTop), ImVec2(xb, lanes_bottom), kSelectionShade);
        dl->AddText(ImVec2(delta_x, oy + 4), 0xffffffff, delta.c_str());
    }
    for (const Flag& f : flags) {
        const float x = ox + L.x(f.ts);
        dl->AddLine(ImVec2(x, oy + Layout::kTop - 6), ImVec2(x, lanes_bottom), f.colour, 2);
        dl->AddRectFilled(ImVec2(x - 5, oy + Layout::kTop - 16), ImVec2(x + 5, oy + Layout::kTop - 4), f.colour);
        dl->AddText(ImVec2(x - 3, oy + Layout::kTop - 17), 0xff000000, f.name);
    }
    if (marks.cursor_ts >= L.t0 && marks.cursor_ts <= L.t1) {  // the pinned time, through every lane
        const float x = ox + L.x(marks.cursor_ts);
        dl->AddLine(ImVec2(x, oy + Layout::kTop - 6), ImVec2(x, oy + L.lane_top(rows)), kCursorColor);
    }
}

}  // namespace irqflow::gui
