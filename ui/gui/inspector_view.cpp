// The inspector: the APIC of the vCPU under the mouse (or pinned) at that time, its
// IRR/ISR/TMR grids, and the interrupt behind a clicked ISR bit.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "go_to.hpp"
#include "inspector_model.hpp"
#include "panels_view.hpp"
#include "timeline_model.hpp"

namespace irqflow::gui {
namespace {

// A cell's pitch: 8 pixels and a gap across, a pixel more down, so the row labels (the
// font's digits are 8 pixels tall) stand apart.
constexpr float kCellW = 9, kCellH = 10;

struct Grid {
    const char* title;
    const replay::VectorSet& set;
    bool by_vector_colour;  // set bits in each vector's colour (ISR) or plain
    int pinned;             // a vector outlined, or -1
};

// The 16x16 grids of 256-bit registers side by side: a vector's row is its high nibble
// (labelled 0x00..0xf0 once, left of the first grid, since the grids share rows), its
// column the low nibble (0..f over each grid). Returns the vector under the mouse in each
// grid (-1: none); origins[i] is grid i's first cell.
std::vector<int> vector_grids(const std::vector<Grid>& grids, std::vector<ImVec2>& origins) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float line = ImGui::GetTextLineHeight(), char_w = ImGui::CalcTextSize("0").x;
    const float row_labels = ImGui::CalcTextSize("0x00").x + 4, gap = ImGui::GetStyle().ItemSpacing.x;
    const float top = p.y + line + 2 + line;  // the titles, then the column labels
    constexpr std::uint32_t kLabel = 0xff9a9a9a, kTitle = 0xffdcdcdc;
    char text[8];
    for (int r = 0; r < 16; ++r) {
        std::snprintf(text, sizeof text, "0x%x0", r);
        dl->AddText(ImVec2(p.x, top + static_cast<float>(r) * kCellH + (kCellH - line) / 2), kLabel, text);
    }
    std::vector<int> hovered(grids.size(), -1);
    origins.assign(grids.size(), ImVec2());
    for (std::size_t g = 0; g < grids.size(); ++g) {
        const ImVec2 o(p.x + row_labels + static_cast<float>(g) * (16 * kCellW + gap), top);
        origins[g] = o;
        dl->AddText(ImVec2(o.x, p.y), kTitle, grids[g].title);
        for (int c = 0; c < 16; ++c) {
            std::snprintf(text, sizeof text, "%x", c);
            dl->AddText(ImVec2(o.x + static_cast<float>(c) * kCellW + (kCellW - 1 - char_w) / 2, p.y + line + 2), kLabel, text);
        }
        for (int v = 0; v < 256; ++v) {
            const ImVec2 a(o.x + static_cast<float>(v % 16) * kCellW, o.y + static_cast<float>(v / 16) * kCellH);
            const ImVec2 b(a.x + kCellW - 1, a.y + kCellH - 1);
            const std::uint32_t on = grids[g].by_vector_colour ? vector_color(v) : 0xffe0e0e0;
            dl->AddRectFilled(a, b, grids[g].set.test(v) ? on : 0xff3a3a3a);
            if (v == grids[g].pinned) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), 0xffffffff);
            if (ImGui::IsMouseHoveringRect(a, b)) hovered[g] = v;
        }
    }
    ImGui::Dummy(ImVec2(row_labels + static_cast<float>(grids.size()) * (16 * kCellW + gap), top - p.y + 16 * kCellH));
    return hovered;
}

}  // namespace

void inspector(const Session& s, UiState& u, const Layout& layout, float x, float y, float w, float h) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantCaptureMouse && io.MousePos.x > Layout::kGutter && io.MousePos.x < layout.width && !u.dragging &&
        (!u.pinned || u.clicked)) {
        if (u.clicked) u.pinned = true;
        const auto rows = u.filter.rows();
        const int row = layout.row_at(io.MousePos.y);
        const auto it = std::find(rows.begin(), rows.end(), row);
        if (row >= 0 && it != rows.end()) {
            const int lane = static_cast<int>(it - rows.begin());
            const auto ts = layout.time_at(io.MousePos.x);
            if (ts != u.shown_ts || lane != u.shown_lane) {
                u.states = s.index->at(ts);
                u.shown_ts = ts;
                u.shown_lane = lane;
            }
        }
    }
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(w, h), ImGuiCond_Always);
    ImGui::Begin("Inspector", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse);
    if (u.shown_lane < 0 || static_cast<std::size_t>(u.shown_lane) >= u.states.size()) {
        ImGui::TextUnformatted("hover a vCPU lane to see its APIC at that time");
        ImGui::End();
        return;
    }
    const auto& st = u.states[static_cast<std::size_t>(u.shown_lane)];
    ImGui::Text("vm%d/vcpu%d (APIC %u) at %.9f s%s%s", st.vm.value(), st.vcpu.value(), st.apic.value(), secs(u.shown_ts),
                st.synced ? "" : "  [state not proven yet]", u.pinned ? "  [pinned: Esc]" : "");
    ImGui::Text("TPR 0x%02x  PPR 0x%02x  deliverable %s  PV EOI %s%s", st.tpr, st.ppr(), st.deliverable() >= 0 ? "yes" : "no",
                st.pv_eoi_enabled ? "enabled" : "disabled", st.pv_eoi_armed ? ", armed" : "");
    // the set bits as text too: a cell in a 16 x 16 grid is hard to read off
    ImGui::Text("ISR: %s   IRR: %s   TMR: %s", vector_list(st.isr).c_str(), vector_list(st.irr).c_str(), vector_list(st.tmr).c_str());
    if (u.print_view) {
        static std::string printed;
        const std::string line = "bits " + std::to_string(u.shown_lane) + " isr " + vector_list(st.isr) + " irr " + vector_list(st.irr);
        if (line != printed) std::printf("%s\n", (printed = line).c_str());
    }
    std::vector<ImVec2> origins;
    const auto under = vector_grids({{"IRR", st.irr, false, -1}, {"ISR (click a bit)", st.isr, true, u.pinned_vector}, {"TMR", st.tmr, false, -1}},
                                    origins);
    const int irr = under[0], isr = under[1], tmr = under[2];
    if (u.print_view && !u.printed_grid) {  // where the ISR cells are, for tests that click one
        std::printf("isr-grid %.0f %.0f %.0f %.0f\n", origins[1].x, origins[1].y, kCellW, kCellH);
        u.printed_grid = true;
    }
    if (isr >= 0 && ImGui::IsMouseClicked(0)) u.pinned_vector = st.isr.test(isr) ? isr : -1;
    const int hovered = isr >= 0 ? isr : (irr >= 0 ? irr : tmr);
    if (hovered >= 0) ImGui::SetTooltip("vector 0x%02x", hovered);
    // the pinned ISR bit: who set it and who cleared it, with a jump to each
    if (u.pinned_vector >= 0) {
        const auto* ir = interrupt_in_service(s.replay, st.vm, st.vcpu, u.pinned_vector, u.shown_ts);
        ImGui::Separator();
        if (!ir) {
            ImGui::Text("vector 0x%02x is not in service here", u.pinned_vector);
        } else {
            ImGui::Text("vector 0x%02x (%s)", ir->vector, ir->level ? "level" : "edge");
            auto step = [&](const char* what, std::uint64_t record, std::int64_t ts, const std::string& extra) {
                if (!ts) {
                    ImGui::Text("%s: not in the trace", what);
                    return;
                }
                ImGui::Text("%s: record %llu at %.9f s %s", what, static_cast<ull>(record), secs(ts), extra.c_str());
                ImGui::SameLine();
                ImGui::PushID(what);
                if (ImGui::SmallButton("go")) go_to_record(s, u, record);
                ImGui::PopID();
            };
            step("accepted", ir->accept_record, ir->accept_ts, "");
            step("injected", ir->inject_record, ir->inject_ts, ir->nesting_depth > 1 ? "(nested)" : "");
            step("EOI", ir->eoi_record, ir->eoi_ts, ir->eoi_path ? std::string("via ") + replay::to_string(*ir->eoi_path) : std::string());
            if (u.print_view && u.printed_pin != u.pinned_vector) {
                std::printf("isr-pin %d accept %llu inject %llu eoi %llu\n", ir->vector, static_cast<ull>(ir->accept_record),
                            static_cast<ull>(ir->inject_record), static_cast<ull>(ir->eoi_record));
                u.printed_pin = u.pinned_vector;
            }
        }
    }
    ImGui::End();
}

}  // namespace irqflow::gui
