// The tabbed panel under the timeline: the navigation bar on top, then one tab per
// panel (each in its own file: ui/gui/README.md).
#include <imgui.h>

#include <cstdio>

#include "panels_view.hpp"

namespace irqflow::gui {

void panels(const Session& s, UiState& u, float x, float y, float w, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    ImGui::Begin("panels", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    navigation_bar(s, u);
    auto tab = [&](const char* label, const char* key) {
        const bool open = ImGui::BeginTabItem(label, nullptr, u.open_tab == key ? ImGuiTabItemFlags_SetSelected : 0);
        return open;
    };
    if (ImGui::BeginTabBar("tabs")) {
        char findings[48];
        std::snprintf(findings, sizeof findings, "Findings (%zu)###findings", s.replay.findings.size() - s.replay.follow_ons());  // roots
        if (tab(findings, "findings")) {
            findings_tab(s, u);
            ImGui::EndTabItem();
        }
        if (tab("Statistics", "statistics")) {
            statistics_tab(s, u);
            ImGui::EndTabItem();
        }
        if (tab("Latency", "latency")) {
            latency_tab(s, u);
            ImGui::EndTabItem();
        }
        if (tab("Selection A-B", "selection")) {
            selection_tab(s, u);
            ImGui::EndTabItem();
        }
        if (tab("Events in view", "events")) {
            events_tab(s, u);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
        u.open_tab.clear();
    }
    ImGui::End();
}

}  // namespace irqflow::gui
