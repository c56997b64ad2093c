#include "loading_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace irqflow::gui {

std::optional<std::string> session_picker(const std::string& db, const std::vector<StoredSessionEntry>& all, bool print) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(900.0f, io.DisplaySize.x - 20), 0), ImGuiCond_Always);
    ImGui::Begin("Sessions", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    ImGui::Text("%s holds %zu sessions: open one", db.c_str(), all.size());
    std::optional<std::string> picked;
    if (ImGui::BeginTable("sessions", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* c : {"id", "name", "events", "findings"}) ImGui::TableSetupColumn(c);
        ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (const auto& e : all) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable(e.id.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) picked = e.id;
            if (print)
                std::printf("pick %s %.0f %.0f %.0f %.0f\n", e.id.c_str(), ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                            ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(e.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(e.events));
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(e.findings));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(e.source.c_str());
        }
        ImGui::EndTable();
    }
    ImGui::End();
    if (print) std::fflush(stdout);
    return picked;
}

void loading_screen(const std::string& what, const LoadProgress& p) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(460, 0), ImGuiCond_Always);
    ImGui::Begin("Loading", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    const int stage = std::clamp(p.stage.load(), 0, kLoadDone);
    ImGui::Text("%s", what.c_str());
    ImGui::Text("%s ...", kLoadStages[stage]);
    ImGui::ProgressBar((static_cast<float>(stage) + std::clamp(p.fraction.load(), 0.0f, 1.0f)) / static_cast<float>(kLoadDone), ImVec2(-1, 0));
    ImGui::End();
}

}  // namespace irqflow::gui
