#include "guest_spans_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "column_runs.hpp"

namespace irqflow::gui {

void draw_guest_spans(ImDrawList* dl, const Timeline& tl, const Lane& lane, const Layout& L, float ox, float oy, int row, int vector,
                      ColumnImage* strips) {
    constexpr std::uint32_t kUnmapped = 0xff909090;  // a device IRQ whose vector the guest's trace never said
    constexpr float kArrowFrom = 3;                  // px: a span this wide gets its injection's line
    const float y = oy + L.guest_y(row), h = L.guest_height();
    const double ns_per_px = static_cast<double>(L.t1 - L.t0) / static_cast<double>(std::max(1.0f, L.width - Layout::kGutter));
    const auto& spans = lane.guest;
    // the last span starting before the view may still cover it
    std::size_t i = lane.guest_index.lower(L.t0);
    while (i < spans.size() && spans[i].start < L.t0) ++i;
    if (i > 0) --i;
    float last_x = -1;
    ColumnRuns narrow(dl, y, y + h, strips);
    for (; i < spans.size() && spans[i].start <= L.t1; ++i) {
        const GuestSpan& s = spans[i];
        if (s.end < L.t0 || (vector >= 0 && s.vector != vector)) continue;
        const std::uint32_t colour = s.vector >= 0 ? vector_color(s.vector) : kUnmapped;
        const float x0 = std::max(ox + Layout::kGutter, ox + L.x(s.start));
        const float x1 = std::max(x0 + 1, std::min(ox + L.width, ox + L.x(s.end)));
        if (x1 - x0 <= 1) {
            if (std::floor(x0) == last_x) {
                // more sub-pixel spans in this column: on to the first of the next one
                const auto next_col = L.t0 + static_cast<std::int64_t>((static_cast<double>(last_x - ox - Layout::kGutter) + 1) * ns_per_px);
                const std::size_t next = std::max(i + 1, lane.guest_index.lower(next_col));
                i = next - 1;  // the loop's ++i lands on it
                continue;
            }
            last_x = std::floor(x0);
            narrow.put(last_x, colour);
            continue;
        }
        last_x = std::floor(x0);
        dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + h), colour);
        const std::string& name = tl.guest_names[s.name];
        if (x1 - x0 > ImGui::CalcTextSize(name.c_str()).x + 4) dl->AddText(ImVec2(x0 + 2, y - 2), 0xff000000, name.c_str());
        if (x1 - x0 >= kArrowFrom && s.inject_ts >= L.t0) {
            // from the injection's marker (a triangle pointing down at the marker row) to the handler's entry
            const float ix = ox + L.x(s.inject_ts), my = oy + L.isr_y(row, 4) + 5;
            dl->AddLine(ImVec2(ix, my), ImVec2(x0, y), kInjectionColor, 1);
        }
    }
}

}  // namespace irqflow::gui
