// The events tab: the events in view (or a search's matches), one row each, the
// selected one scrolled to.
#include <imgui.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "event_format.hpp"
#include "events_model.hpp"
#include "go_to.hpp"
#include "panels_view.hpp"

namespace irqflow::gui {

// The events in view, or a search's matches in the whole trace while there is one.
void events_tab(const Session& s, UiState& u) {
    const bool searching = !u.searched.empty() && u.search_error.empty();
    const auto& v = u.nav.view();
    const bool stale = v.t0 != u.rows_view.t0 || v.t1 != u.rows_view.t1 || u.filter.lane_shown != u.rows_filter.lane_shown ||
                       u.filter.vector != u.rows_filter.vector;
    if (!searching && stale && !u.dragging) {  // not while dragging: a pan recomputes once it stops
        u.rows = events_in_view(s.trace, u.lanes, u.filter, v);
        u.rows_view = v;
        u.rows_filter = u.filter;
    }
    const EventRows& rows = searching ? u.matches : u.rows;
    if (searching) {
        ImGui::Text("%llu matches of \"%s\" in the whole trace (clear the search to list the events in view)", static_cast<ull>(rows.size()),
                    u.searched.c_str());
    } else if (rows.too_many) {
        ImGui::Text("%llu events in view: zoom in to list them with this filter", static_cast<ull>(rows.in_view));
        return;
    } else {
        ImGui::Text("%llu events in view%s", static_cast<ull>(rows.size()), rows.filtered ? " (filtered)" : "");
    }
    if (!ImGui::BeginTable("events", 6,
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_Resizable |
                               ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* c : {"record", "time (s)", "cpu", "vcpu", "event"}) ImGui::TableSetupColumn(c);
    ImGui::TableSetupColumn("fields", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    // the row of the event a go-to selected, if this view and filter list it (a plain
    // index: GCC 12 without LTO takes the std::optional for maybe-uninitialized here)
    constexpr std::size_t kNoRow = SIZE_MAX;
    const std::size_t selected_row = u.selected_event ? rows.row_of(*u.selected_event).value_or(kNoRow) : kNoRow;
    ImGuiListClipper clip;  // only the rows on screen are formatted
    clip.Begin(static_cast<int>(rows.size()));
    if (selected_row != kNoRow && u.scroll_to_selected)
        clip.ForceDisplayRangeByIndices(static_cast<int>(selected_row), static_cast<int>(selected_row) + 1);
    while (clip.Step())
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
            const std::size_t index = rows.at(static_cast<std::size_t>(i));
            const Event& e = s.trace.events[index];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            char buf[48];
            std::snprintf(buf, sizeof buf, "%llu##%d", static_cast<ull>(e.record), i);
            const bool selected = selected_row == static_cast<std::size_t>(i);
            if (ImGui::Selectable(buf, selected, ImGuiSelectableFlags_SpanAllColumns)) {
                go_to(s, u, e.ts.value(), index);
                if (searching) u.match = static_cast<std::size_t>(i);  // F3 goes on from the clicked match
            }
            if (selected && u.scroll_to_selected) {
                ImGui::SetScrollHereY(0.5f);
                u.scroll_to_selected = false;
            } else if (selected && u.print_view && ImGui::IsItemVisible() && u.printed_selected != index) {
                std::printf("selected %llu visible\n", static_cast<ull>(e.record));  // for tests: the row is on screen
                u.printed_selected = index;
            }
            ImGui::TableNextColumn();
            ImGui::Text("%.9f", secs(e.ts.value()));
            ImGui::TableNextColumn();
            ImGui::Text("%d", e.cpu.value());
            ImGui::TableNextColumn();
            if (e.vcpu == kUnknownVcpu) ImGui::TextUnformatted("-");
            else ImGui::Text("%d/%d", e.vm.value(), e.vcpu.value());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.trace.name(e.name_id).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(ui::event_fields_text(s.trace, e).c_str());
        }
    ImGui::EndTable();
}

}  // namespace irqflow::gui
