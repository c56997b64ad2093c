#include "compare_view.hpp"

#include <imgui.h>

#include <cstdio>
#include <string>
#include <tuple>

#include "timeline_view.hpp"

namespace irqflow::gui {

float compare_plot_height(const Session&, const Filter& f) { return Layout::fitted_height(f.row_count()); }

void draw_compare(ImDrawList* dl, const Session& a, const UiState& u, const CompareState& c, float width, ColumnImage* strips) {
    const auto& v = u.nav.view();
    const float ha = compare_plot_height(a, u.filter), hb = compare_plot_height(c.b, c.filter_b);
    const Layout la{width, ha, v.t0, v.t1}, lb{width, hb, v.t0 + c.shift, v.t1 + c.shift};
    draw_timeline(dl, a.tl, u.filter, u.only ? &*u.only : nullptr, la, 0, 0, strips, ViewMarks{u.absolute_time, -1});
    draw_timeline(dl, c.b.tl, c.filter_b, nullptr, lb, 0, ha, strips, ViewMarks{u.absolute_time, -1});
    // which run is which, under each one's serial row label; a line between them
    for (const auto& [y, name, title] : {std::tuple{ha - 18, "A", &a.title}, {ha + hb - 18, "B", &c.b.title}}) {
        const std::string text = std::string(name) + ": " + *title;
        dl->AddText(ImVec2(Layout::kGutter + 4, y), 0xff80e0ff, text.c_str());
    }
    dl->AddLine(ImVec2(0, ha - 1), ImVec2(width, ha - 1), 0xff80e0ff, 2);
}

void compare_panel(const Session& a, UiState& u, CompareState& c, float x, float y, float w, float h) {
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    ImGui::Begin("compare", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    std::size_t significant = 0;
    for (const auto& r : c.rows) significant += r.test.significant;
    ImGui::Text("A: %s   B: %s   %zu significant changes (highlighted; two-sided 1 %%). Click a row: both timelines "
                "aligned at an example of it in each run.",
                a.title.c_str(), c.b.title.c_str(), significant);
    if (ImGui::BeginTable("diff", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("row", ImGuiTableColumnFlags_WidthStretch);
        for (const char* col : {"A", "B", "change", "significant"}) ImGui::TableSetupColumn(col);
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < c.rows.size(); ++i) {
            const auto& r = c.rows[i];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (r.test.significant) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.8f, 0.3f, 1.0f));
            char label[256];
            std::snprintf(label, sizeof label, "%s%s##%zu", r.headline ? "* " : "  ", r.label.c_str(), i);
            if (ImGui::Selectable(label, c.selected == static_cast<int>(i), ImGuiSelectableFlags_SpanAllColumns)) {
                c.selected = static_cast<int>(i);
                const auto& v = u.nav.view();
                const std::int64_t centre = v.t0 + (v.t1 - v.t0) / 2;
                const Example ex = example_of(r, a, c.b, centre + 1, centre + c.shift + 1);
                if (ex.a_ts >= 0) {
                    u.nav.centre_on(ex.a_ts);
                    if (ex.b_ts >= 0) c.shift = ex.b_ts - ex.a_ts;  // B's example under A's
                }
                if (u.print_view)
                    std::printf("align %s %lld %lld\n", r.key.c_str(), static_cast<long long>(ex.a_ts), static_cast<long long>(ex.b_ts));
            }
            if (u.print_view && !c.printed_rows && ImGui::IsItemVisible())
                std::printf("row %s %.0f %.0f %.0f %.0f\n", r.key.c_str(), ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                            ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y);
            const std::string va = value_text(r, r.a), vb = value_text(r, r.b), ch = change_text(r);
            const char* verdict = verdict_text(r);
            for (const char* cell : {va.c_str(), vb.c_str(), ch.c_str(), verdict}) {
                ImGui::TableNextColumn();
                ImGui::TextUnformatted(cell);
            }
            if (r.test.significant) ImGui::PopStyleColor();
        }
        ImGui::EndTable();
    }
    if (u.print_view && !c.printed_rows && ImGui::GetFrameCount() > 3) {
        c.printed_rows = true;
        std::fflush(stdout);
    }
    ImGui::End();
}

}  // namespace irqflow::gui
