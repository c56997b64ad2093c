// The selection tab: what lies between markers A and B, per shown lane.
#include <imgui.h>

#include <cstdio>

#include "panels_view.hpp"
#include "selection_model.hpp"
#include "time_axis.hpp"

namespace irqflow::gui {

// What lies between markers A and B, for the shown lanes and the vector filter.
void selection_tab(const Session& s, UiState& u) {
    if (u.mark_a < 0 || u.mark_b < 0) {
        ImGui::TextUnformatted("set markers A and B (Ctrl+click and Ctrl+right-click on the timeline, or A and B at the pointer)");
        ImGui::TextUnformatted("to see the exits, injections, EOIs, latencies and findings between them");
        return;
    }
    if (!u.selection || u.selection->t0 != std::min(u.mark_a, u.mark_b) || u.selection->t1 != std::max(u.mark_a, u.mark_b) ||
        u.filter.lane_shown != u.selection_filter.lane_shown || u.filter.vector != u.selection_filter.vector) {
        u.selection = range_stats(s, u.lanes, u.filter, u.mark_a, u.mark_b);
        u.selection_filter = u.filter;
    }
    const RangeStats& r = *u.selection;
    ImGui::Text("A %.9f s .. B %.9f s: B-A %s%s", secs(u.mark_a), secs(u.mark_b), u.mark_b >= u.mark_a ? "+" : "",
                duration_text(u.mark_b - u.mark_a).c_str());
    if (u.filter.vector >= 0) {
        ImGui::SameLine();
        ImGui::Text("  (vector 0x%02x, shown vCPUs)", u.filter.vector);
    }
    const std::int64_t in_state = r.time_in_state[0] + r.time_in_state[1] + r.time_in_state[2];
    auto share = [&](std::size_t k) { return in_state ? 100.0 * static_cast<double>(r.time_in_state[k]) / static_cast<double>(in_state) : 0.0; };
    ImGui::Text("%llu events, %llu exits; vCPU time: guest %.1f %%, host %.1f %%, halted %.1f %%", static_cast<ull>(r.events),
                static_cast<ull>(r.exits), share(0), share(1), share(2));
    ImGui::Text("%llu injections, %llu EOIs, %llu PV EOIs, %llu IPI deliveries", static_cast<ull>(r.injections), static_cast<ull>(r.real_eois),
                static_cast<ull>(r.pv_eois), static_cast<ull>(r.ipis));
    for (auto [name, l] : {std::pair{"accept -> inject", &r.accept_to_inject}, {"inject -> EOI", &r.inject_to_eoi}}) {
        if (!l->samples) ImGui::Text("%s: none", name);
        else
            ImGui::Text("%s: %zu, p50 %s, p99 %s, max %s", name, l->samples, duration_text(l->p50).c_str(), duration_text(l->p99).c_str(),
                        duration_text(l->max).c_str());
    }
    std::string findings;
    for (const auto& [rule, n] : r.findings_by_rule) findings += (findings.empty() ? "" : ", ") + rule + " " + std::to_string(n);
    ImGui::Text("findings: %s", findings.empty() ? "none" : findings.c_str());
    if (ImGui::BeginTable("selection-exits", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("exit reason");
        ImGui::TableSetupColumn("exits");
        ImGui::TableHeadersRow();
        std::vector<std::pair<std::uint64_t, std::string>> by_count;
        for (const auto& [reason, n] : r.exits_by_reason) by_count.emplace_back(n, reason);
        std::sort(by_count.rbegin(), by_count.rend());
        for (const auto& [n, reason] : by_count) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(reason.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%llu", static_cast<ull>(n));
        }
        ImGui::EndTable();
    }
    if (u.print_view) {
        static std::string printed;
        char line[160];
        std::snprintf(line, sizeof line, "selection %lld %lld exits %llu injections %llu", static_cast<long long>(r.t0),
                      static_cast<long long>(r.t1), static_cast<ull>(r.exits), static_cast<ull>(r.injections));
        if (printed != line) std::printf("%s\n", (printed = line).c_str());
    }
}

}  // namespace irqflow::gui
