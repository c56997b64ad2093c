#include "overlays.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "key_help.hpp"

namespace irqflow::gui {
namespace {

constexpr const char* kLegendTitle = "Key of colours (L)";
constexpr float kSwatchRoom = 28;  // a swatch's 24 pixels and the gap after it

// One swatch, drawn as the timeline draws that item (timeline_view.cpp), 24 x 12 pixels at p.
void swatch(ImDrawList* dl, ImVec2 p, Glyph g, std::uint32_t c) {
    const float x = p.x, y = p.y, cx = p.x + 12, my = p.y + 3;
    switch (g) {
    case Glyph::Band: dl->AddRectFilled(ImVec2(x, y + 2), ImVec2(x + 24, y + 12), c); break;
    case Glyph::Tick: dl->AddRectFilled(ImVec2(x + 4, y + 2), ImVec2(x + 20, y + 10), c); break;
    case Glyph::Bar: dl->AddRectFilled(ImVec2(x, y + 1), ImVec2(x + 24, y + 11), c); break;
    case Glyph::Injection: dl->AddTriangleFilled(ImVec2(cx - 3, my), ImVec2(cx + 3, my), ImVec2(cx, my + 5), c); break;
    case Glyph::NestedInjection: dl->AddTriangle(ImVec2(cx - 3, my), ImVec2(cx + 3, my), ImVec2(cx, my + 5), c); break;
    case Glyph::RealEoi: dl->AddLine(ImVec2(cx, my), ImVec2(cx, my + 6), c, 2); break;
    case Glyph::PvEoi: dl->AddQuad(ImVec2(cx, my), ImVec2(cx + 3, my + 3), ImVec2(cx, my + 6), ImVec2(cx - 3, my + 3), c); break;
    case Glyph::Strip: dl->AddRectFilled(ImVec2(x, y + 5), ImVec2(x + 24, y + 7), c); break;
    case Glyph::IpiLine: dl->AddLine(ImVec2(x + 8, y), ImVec2(x + 12, y + 12), c, 1.5f); break;
    case Glyph::Finding: dl->AddRectFilled(ImVec2(cx - 1, y), ImVec2(cx + 2, y + 12), c); break;
    case Glyph::Cursor: dl->AddLine(ImVec2(cx, y), ImVec2(cx, y + 12), c); break;
    case Glyph::Lost:  // hatched as timeline_view.cpp draws a gap
        dl->AddRect(ImVec2(x, y), ImVec2(x + 24, y + 12), c);
        dl->PushClipRect(ImVec2(x, y), ImVec2(x + 24, y + 12), true);
        for (float hx = x - 12; hx < x + 24; hx += 8) dl->AddLine(ImVec2(hx, y + 12), ImVec2(hx + 12, y), c);
        dl->PopClipRect();
        break;
    }
}

}  // namespace

float legend_dock_width(const std::vector<LegendGroup>& groups, float window_width) {
    const ImGuiStyle& st = ImGui::GetStyle();
    // the title bar holds the title and the close button
    float widest = ImGui::CalcTextSize(kLegendTitle).x + ImGui::GetFontSize() + 2 * st.FramePadding.x + st.ItemInnerSpacing.x;
    for (const auto& g : groups) {
        widest = std::max(widest, ImGui::CalcTextSize(g.title.c_str()).x + ImGui::GetFontSize() + 2 * st.FramePadding.x);  // the header's arrow
        for (const auto& e : g.entries) widest = std::max(widest, kSwatchRoom + st.ItemSpacing.x + ImGui::CalcTextSize(e.label.c_str()).x);
    }
    const float w = widest + 2 * st.WindowPadding.x + st.ScrollbarSize + 2;
    return std::min(w, std::floor(window_width * kLegendShare));
}

void legend_window(const std::vector<LegendGroup>& groups, UiState& u, float left, float top, float bottom) {
    if (!u.show_legend) return;
    const float right = ImGui::GetIO().DisplaySize.x;
    ImGui::SetNextWindowPos(ImVec2(left, top), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(std::max(1.0f, right - left), std::max(80.0f, bottom - top)), ImGuiCond_Always);  // scrolls beside the lanes
    if (ImGui::Begin(kLegendTitle, &u.show_legend, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse)) {
        for (const auto& g : groups) {
            if (!ImGui::CollapsingHeader(g.title.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
            for (const auto& e : g.entries) {
                const ImVec2 p = ImGui::GetCursorScreenPos();
                swatch(ImGui::GetWindowDrawList(), p, e.glyph, e.colour);
                ImGui::Dummy(ImVec2(kSwatchRoom, 12));
                ImGui::SameLine();
                ImGui::TextUnformatted(e.label.c_str());
            }
        }
    }
    ImGui::End();
}

void key_help_window(UiState& u) {
    if (!u.show_keys) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.95f);
    if (ImGui::Begin("Keys (? or F1 to close)", &u.show_keys, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove)) {
        if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
            for (const auto& k : kKeyHelp) {
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(k.keys);
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(k.what);
            }
            ImGui::EndTable();
        }
    }
    ImGui::End();
}

}  // namespace irqflow::gui
