#include "view.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace irqflow::gui {
namespace {

template <class T>
std::size_t first_at_or_after(const std::vector<T>& v, std::int64_t ts) {
    return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), ts, [](const T& a, std::int64_t t) { return a.ts < t; }) - v.begin());
}

}  // namespace

void draw_timeline(ImDrawList* dl, const Timeline& tl, const Layout& L, float ox, float oy) {
    const ImVec2 o(ox, oy);
    dl->AddRectFilled(o, ImVec2(ox + L.width, oy + L.height), kBackground);
    const int columns = static_cast<int>(L.width - Layout::kGutter);
    if (columns <= 0) return;
    const double ns_per_px = static_cast<double>(L.t1 - L.t0) / columns;
    char label[64];
    for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
        const auto& lane = tl.lanes[li];
        const int l = static_cast<int>(li);
        std::snprintf(label, sizeof label, "vm%d/vcpu%d", lane.vm.value(), lane.vcpu.value());
        dl->AddText(ImVec2(ox + 4, oy + L.band_y(l)), 0xffdcdcdc, label);
        // bands: per pixel column, the state that covers most of it
        {
            auto it = std::lower_bound(lane.bands.begin(), lane.bands.end(), L.t0, [](const Band& b, std::int64_t t) { return b.end < t; });
            std::vector<std::array<double, 3>> cover(static_cast<std::size_t>(columns), {0, 0, 0});
            for (; it != lane.bands.end() && it->start < L.t1; ++it) {
                const double a = std::max<double>(0, static_cast<double>(it->start - L.t0) / ns_per_px);
                const double b = std::min<double>(columns, static_cast<double>(it->end - L.t0) / ns_per_px);
                for (int c = static_cast<int>(a); c < columns && c <= static_cast<int>(b); ++c) {
                    const double lo = std::max(a, static_cast<double>(c)), hi = std::min(b, static_cast<double>(c + 1));
                    if (hi > lo) cover[static_cast<std::size_t>(c)][static_cast<std::size_t>(it->state)] += hi - lo;
                }
            }
            for (int c = 0; c < columns; ++c) {
                const auto& cv = cover[static_cast<std::size_t>(c)];
                if (cv[0] + cv[1] + cv[2] <= 0) continue;
                const auto s = static_cast<VcpuState>(std::max_element(cv.begin(), cv.end()) - cv.begin());
                const float x = ox + Layout::kGutter + static_cast<float>(c);
                dl->AddRectFilled(ImVec2(x, oy + L.band_y(l)), ImVec2(x + 1, oy + L.band_y(l) + Layout::kBandHeight), state_color(s));
            }
        }
        // exits: one tick per pixel column that has any
        {
            int last_col = -1;
            for (std::size_t i = first_at_or_after(lane.exits, L.t0); i < lane.exits.size() && lane.exits[i].ts <= L.t1; ++i) {
                const int c = static_cast<int>(static_cast<double>(lane.exits[i].ts - L.t0) / ns_per_px);
                if (c == last_col) continue;
                last_col = c;
                const float x = ox + Layout::kGutter + static_cast<float>(c);
                dl->AddLine(ImVec2(x, oy + L.tick_y(l)), ImVec2(x, oy + L.tick_y(l) + Layout::kTickHeight), lane.exits[i].color);
            }
        }
        // ISR: stacked bars by nesting depth, coloured by vector, labelled when wide
        for (const auto& bar : lane.isr) {
            if (bar.end < L.t0 || bar.start > L.t1) continue;
            const float x0 = std::max(ox + Layout::kGutter, ox + L.x(bar.start));
            const float x1 = std::max(x0 + 1, std::min(ox + L.width, ox + L.x(bar.end)));
            const float y = oy + L.isr_y(l, std::min(bar.depth, 3));
            dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + Layout::kIsrRow - 2), vector_color(bar.vector));
            if (x1 - x0 > 34) {
                std::snprintf(label, sizeof label, "0x%02x", bar.vector);
                dl->AddText(ImVec2(x0 + 2, y - 2), 0xff000000, label);
            }
        }
        // injections (down triangles) and EOIs: real EOI a bar, PV EOI a hollow diamond
        int last_col = -1;
        for (std::size_t i = first_at_or_after(lane.markers, L.t0); i < lane.markers.size() && lane.markers[i].ts <= L.t1; ++i) {
            const auto& m = lane.markers[i];
            const int c = static_cast<int>(static_cast<double>(m.ts - L.t0) / ns_per_px);
            if (c == last_col && ns_per_px > 1000) continue;
            last_col = c;
            const float x = ox + Layout::kGutter + static_cast<float>(c), y = oy + L.isr_y(l, 4);
            if (m.kind == Marker::Injection) dl->AddTriangleFilled(ImVec2(x - 3, y), ImVec2(x + 3, y), ImVec2(x, y + 5), 0xffffffff);
            else if (m.kind == Marker::RealEoi) dl->AddLine(ImVec2(x, y), ImVec2(x, y + 6), 0xff00d7ff, 2);
            else dl->AddQuad(ImVec2(x, y), ImVec2(x + 3, y + 3), ImVec2(x, y + 6), ImVec2(x - 3, y + 3), 0xffffc864);
        }
    }
    // IPIs: arrows from the sender lane to each receiver (PV IPI cyan, ICR/Hyper-V magenta)
    for (const auto& a : tl.arrows) {
        if (a.ts < L.t0 || a.ts > L.t1 || a.from_lane < 0 || a.to_lane < 0) continue;
        const float x = ox + L.x(a.ts);
        dl->AddLine(ImVec2(x, oy + L.band_y(a.from_lane) + 5), ImVec2(x + 2, oy + L.band_y(a.to_lane) + 5), a.pv ? 0xc0ffff00 : 0xc0ff00ff);
    }
    // findings: red markers through the lane (or all lanes)
    for (const auto& f : tl.findings) {
        if (f.ts < L.t0 || f.ts > L.t1) continue;
        const float x = ox + L.x(f.ts);
        const float y0 = oy + (f.lane >= 0 ? L.lane_top(f.lane) : Layout::kTop);
        const float y1 = f.lane >= 0 ? y0 + Layout::kLaneHeight - 4 : oy + L.lane_top(static_cast<int>(tl.lanes.size()));
        dl->AddRectFilled(ImVec2(x - 1, y0), ImVec2(x + 2, y1), kFindingColor);
    }
    // the guest's serial lines at their host time
    const float sy = oy + L.serial_y(static_cast<int>(tl.lanes.size()));
    dl->AddText(ImVec2(ox + 4, sy), 0xffdcdcdc, "serial");
    float next_free = 0;
    for (const auto& s : tl.serial) {
        if (s.ts < L.t0 || s.ts > L.t1) continue;
        const float x = ox + L.x(s.ts);
        dl->AddLine(ImVec2(x, sy), ImVec2(x, sy + 14), 0xffdcdcdc);
        if (x >= next_free) {
            dl->AddText(ImVec2(x + 2, sy), 0xffdcdcdc, s.text.c_str());
            next_free = x + 8 * static_cast<float>(std::min<std::size_t>(s.text.size(), 40));
        }
    }
    std::snprintf(label, sizeof label, "%.6f s .. %.6f s", static_cast<double>(L.t0) / 1e9, static_cast<double>(L.t1) / 1e9);
    dl->AddText(ImVec2(ox + Layout::kGutter, oy + 4), 0xffdcdcdc, label);
}

}  // namespace irqflow::gui
