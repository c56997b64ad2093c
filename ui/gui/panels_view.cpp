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
    char findings[48];
    std::snprintf(findings, sizeof findings, "Findings (%zu)###findings", s.replay.findings.size() - s.replay.follow_ons());  // roots
    // The tabs in the order shown; `key` is what --tab and UiState::open_tab name.
    struct Tab {
        const char* label;
        const char* key;
        void (*draw)(const Session&, UiState&);
    };
    const Tab tabs[] = {{findings, "findings", findings_tab},
                        {"Statistics", "statistics", statistics_tab},
                        {"Latency", "latency", latency_tab},
                        {"Selection A-B", "selection", selection_tab},
                        {"Events in view", "events", events_tab}};
    if (ImGui::BeginTabBar("tabs")) {
        for (const auto& t : tabs)
            if (ImGui::BeginTabItem(t.label, nullptr, u.open_tab == t.key ? ImGuiTabItemFlags_SetSelected : 0)) {
                t.draw(s, u);
                ImGui::EndTabItem();
            }
        ImGui::EndTabBar();
        u.open_tab.clear();
    }
    ImGui::End();
}

}  // namespace irqflow::gui
