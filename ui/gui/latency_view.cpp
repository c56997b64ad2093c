// The latency tab: accept → inject and inject → EOI histograms of the shown lanes and
// vector, drawn by hand rather than with ImGui::PlotHistogram: that one spreads bars over
// fractional pixels (so they come out of unequal widths) and has no axes.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "latency_model.hpp"
#include "panels_view.hpp"

namespace irqflow::gui {
namespace {

constexpr float kPlotHeight = 56, kMaxBarWidth = 64;
constexpr std::uint32_t kAxis = 0xff8c8c8c, kText = 0xffdcdcdc;

std::string thousands(std::uint64_t n) {  // 14021 -> "14,021": counts are read, not parsed
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void histogram(const char* title, const LatencyHistogram& h, UiState& u) {
    ImGui::Text("%s: %s samples", title, thousands(h.samples).c_str());
    if (h.samples == 0) return;
    const int n = h.last - h.first + 1;
    std::uint64_t most = 0;
    for (int k = h.first; k <= h.last; ++k) most = std::max(most, h.count[static_cast<std::size_t>(k)]);
    // the count axis on the left, as wide as its widest label; equal whole-pixel bars
    const std::string top = thousands(most);
    const float gutter = ImGui::CalcTextSize(top.c_str()).x + 8;
    const float bar = std::clamp(std::floor((ImGui::GetContentRegionAvail().x - gutter - 8) / static_cast<float>(n)), 2.0f, kMaxBarWidth);
    const float text_h = ImGui::GetTextLineHeight();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float x0 = std::floor(at.x + gutter), y0 = std::floor(at.y + text_h / 2), y1 = y0 + kPlotHeight;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // count axis: the largest bucket's count at the top, 0 at the bottom
    dl->AddLine(ImVec2(x0 - 1, y0), ImVec2(x0 - 1, y1 + 1), kAxis);
    for (auto [y, label] : {std::pair{y0, top}, {y1, std::string("0")}}) {
        dl->AddLine(ImVec2(x0 - 4, y), ImVec2(x0 - 1, y), kAxis);
        dl->AddText(ImVec2(x0 - 6 - ImGui::CalcTextSize(label.c_str()).x, y - text_h / 2), kText, label.c_str());
    }
    dl->AddLine(ImVec2(x0 - 1, y1 + 1), ImVec2(x0 + bar * static_cast<float>(n), y1 + 1), kAxis);
    // bars, and the bucket under the mouse
    int hovered = -1;
    for (int i = 0; i < n; ++i) {
        const int k = h.first + i;
        const std::uint64_t c = h.count[static_cast<std::size_t>(k)];
        const float bx = x0 + bar * static_cast<float>(i);
        if (ImGui::IsMouseHoveringRect(ImVec2(bx, y0), ImVec2(bx + bar, y1 + 1))) hovered = k;
        if (c == 0) continue;
        // at least a pixel for any bucket that has samples: one sample among 10,000 still shows
        const float bh = std::max(1.0f, std::round(kPlotHeight * static_cast<float>(c) / static_cast<float>(most)));
        dl->AddRectFilled(ImVec2(bx, y1 - bh), ImVec2(bx + bar - 1, y1), hovered == k ? kLatencyBarHovered : kLatencyBarColor);
    }
    // bucket edges under the bars: a tick at every edge, a label where it fits
    const float label_w = ImGui::CalcTextSize("512 ms").x;
    const int step = label_step(bar, label_w);
    for (int i = 0; i <= n; ++i) {
        const float ex = x0 + bar * static_cast<float>(i);
        dl->AddLine(ImVec2(ex, y1 + 1), ImVec2(ex, y1 + 4), kAxis);
        if (i % step) continue;
        const std::string edge = bucket_edge_text(h.first + i);
        const float w = ImGui::CalcTextSize(edge.c_str()).x;
        dl->AddText(ImVec2(std::max(at.x, ex - w / 2), y1 + 4), kText, edge.c_str());
    }
    if (u.print_view && !u.printed_histograms.count(title)) {  // where the bars are, for tests that hover one
        std::printf("histogram %s %.0f %.0f %.0f %.0f %d %d\n", title, x0, y0, bar, kPlotHeight, h.first, n);
        u.printed_histograms.insert(title);
    }
    ImGui::Dummy(ImVec2(gutter + bar * static_cast<float>(n) + label_w / 2, kPlotHeight + text_h / 2 + 4 + text_h + 2));
    if (hovered >= 0) {
        const std::uint64_t c = h.count[static_cast<std::size_t>(hovered)];
        char tip[160];
        std::snprintf(tip, sizeof tip, "%s, %s .. %s: %s of %s (%.1f %%)", title, bucket_edge_text(hovered).c_str(),
                      bucket_edge_text(hovered + 1).c_str(), thousands(c).c_str(), thousands(h.samples).c_str(),
                      100.0 * static_cast<double>(c) / static_cast<double>(h.samples));
        ImGui::SetTooltip("%s", tip);
        u.panel_tip = tip;
    }
}

}  // namespace

void latency_tab(const Session& s, UiState& u) {
    if (!u.latency)
        u.latency = {latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::AcceptToInject),
                     latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::InjectToEoi)};
    char vector[16];
    std::snprintf(vector, sizeof vector, "0x%02x", u.filter.vector);
    ImGui::TextWrapped("%s%s, shown vCPUs; each bucket twice as wide as the one before (hover a bar for its count)",
                       u.filter.vector >= 0 ? "vector " : "all vectors (set one above to narrow)", u.filter.vector >= 0 ? vector : "");
    // side by side, each half the tab: stacked, the second would fall below a short panel
    if (!ImGui::BeginTable("histograms", 2, ImGuiTableFlags_SizingStretchSame)) return;
    ImGui::TableNextColumn();
    histogram("accept->inject", u.latency->first, u);
    ImGui::TableNextColumn();
    histogram("inject->EOI", u.latency->second, u);
    ImGui::EndTable();
}

}  // namespace irqflow::gui
