// The statistics tab: lost events, unsynced stretches, the replay's statistics and the
// per-vCPU exit table.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "panels_view.hpp"
#include "statistics_model.hpp"

namespace irqflow::gui {

void statistics_tab(const Session& s, UiState& u) {
    const auto& st = s.replay.stats;
    // the replay's statistics (one list for the CLI, the database and here), then the
    // exits by reason per shown vCPU
    auto rows = statistics_rows(s.replay);
    rows.insert(rows.begin(), {lost_events_row(s.tl), unsynced_row(s.tl)});
    ImGui::BeginChild("summary", ImVec2(std::min(520.0f, ImGui::GetContentRegionAvail().x * 0.5f), 0));
    // both tables keep each column as wide as its widest cell and scroll sideways when the
    // panel is narrower: a squeezed column would cut its numbers to a character or two
    constexpr ImGuiTableFlags kFlags =
        ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollX | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit;
    if (ImGui::BeginTable("summary", 2, kFlags)) {
        ImGui::TableSetupScrollFreeze(1, 0);
        for (const auto& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.key.c_str());
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.meaning.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.value.c_str());
        }
        ImGui::EndTable();
    }
    ImGui::EndChild();
    ImGui::SameLine();
    // exits by reason per shown vCPU
    std::vector<int> cols;
    for (std::size_t l = 0; l < s.tl.lanes.size(); ++l)
        if (u.filter.shows(static_cast<int>(l))) cols.push_back(static_cast<int>(l));
    if (!ImGui::BeginTable("exits", static_cast<int>(cols.size()) + 2, kFlags)) return;
    ImGui::TableSetupScrollFreeze(1, 1);  // the reason and the header stay in view
    ImGui::TableSetupColumn("exit reason");
    ImGui::TableSetupColumn("all vCPUs");
    char label[48];
    for (int l : cols) {
        std::snprintf(label, sizeof label, "vcpu%d", s.tl.lanes[static_cast<std::size_t>(l)].vcpu.value());
        ImGui::TableSetupColumn(label);
    }
    ImGui::TableHeadersRow();
    for (const auto& [reason, total] : st.exits_by_reason) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(reason.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<ull>(total));
        for (int l : cols) {
            ImGui::TableNextColumn();
            const auto& m = s.tl.lanes[static_cast<std::size_t>(l)].exits_by_reason;
            auto it = m.find(reason);
            ImGui::Text("%llu", static_cast<ull>(it == m.end() ? 0 : it->second));
        }
    }
    ImGui::EndTable();
}

}  // namespace irqflow::gui
