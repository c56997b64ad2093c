// The navigation bar over the panels: go to a time or #record, the vector filter,
// previous/next finding, injection and EOI, the search box and the vCPU checkboxes;
// and the keys that do the same.
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "go_to.hpp"
#include "panels_view.hpp"

namespace irqflow::gui {
namespace {

// The next item on this line when `width` more pixels fit in the panel, else on the next
// line: a row of items that wraps at the panel's edge instead of running past it.
void same_line_if_fits(float width) {
    const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
    if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

// The widths of the bar's items, for same_line_if_fits.
float text_width(const char* text) { return ImGui::CalcTextSize(text).x; }
float button_width(const char* label) { return text_width(label) + 2 * ImGui::GetStyle().FramePadding.x; }
float labelled_width(float field, const char* label) { return field + ImGui::GetStyle().ItemInnerSpacing.x + text_width(label); }
float arrows_width(const char* between) { return 2 * ImGui::GetFrameHeight() + 4 + (between ? text_width(between) + 2 : 0); }  // ◀ label ▶, 2 px apart

constexpr float kGotoWidth = 140, kVectorWidth = 70, kSearchWidth = 330;

void search_bar(const Session& s, UiState& u) {
    same_line_if_fits(kSearchWidth);
    ImGui::SetNextItemWidth(kSearchWidth);
    if (u.focus_search) {
        ImGui::SetKeyboardFocusHere();
        u.focus_search = false;
    }
    if (ImGui::InputTextWithHint("##search", "search: kvm_exit exit_reason=HLT 0xec INJ-NOT-PENDING", u.search_text, sizeof u.search_text,
                                 ImGuiInputTextFlags_EnterReturnsTrue))
        search_step(s, u, true);
    same_line_if_fits(arrows_width(nullptr));
    if (ImGui::ArrowButton("prev-match", ImGuiDir_Left)) search_step(s, u, false);
    ImGui::SameLine(0, 2);
    if (ImGui::ArrowButton("next-match", ImGuiDir_Right)) search_step(s, u, true);
    if (!u.search_error.empty()) {
        same_line_if_fits(text_width(u.search_error.c_str()));
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.search_error.c_str());
    } else if (!u.searched.empty()) {
        char found[64];
        if (u.match) std::snprintf(found, sizeof found, "match %zu of %zu", *u.match + 1, u.matches.size());
        else std::snprintf(found, sizeof found, "%zu matches", u.matches.size());
        same_line_if_fits(text_width(found));
        ImGui::TextUnformatted(found);
        same_line_if_fits(button_width("clear"));
        if (ImGui::SmallButton("clear")) {
            u.search_text[0] = 0;
            u.searched.clear();
            u.matches = EventRows{};
            u.match.reset();
        }
    }
}

}  // namespace

void navigation_bar(const Session& s, UiState& u) {
    ImGui::SetNextItemWidth(kGotoWidth);
    if (u.focus_goto) {
        ImGui::SetKeyboardFocusHere();
        u.focus_goto = false;
    }
    if (ImGui::InputTextWithHint("##goto", "time or #record", u.goto_text, sizeof u.goto_text, ImGuiInputTextFlags_EnterReturnsTrue))
        go_to_text(s, u);
    same_line_if_fits(button_width("Go"));
    if (ImGui::Button("Go")) go_to_text(s, u);
    if (!u.goto_error.empty()) {
        same_line_if_fits(text_width(u.goto_error.c_str()));
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.goto_error.c_str());
    }
    same_line_if_fits(labelled_width(kVectorWidth, "vector"));
    ImGui::SetNextItemWidth(kVectorWidth);
    if (ImGui::InputTextWithHint("vector", "all", u.vector_text, sizeof u.vector_text)) {
        const std::string v = u.vector_text;
        int vector = -1;
        if (!v.empty()) {
            char* end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 0);
            if (end && *end == 0 && n >= 0 && n <= 255) vector = static_cast<int>(n);
        }
        if (vector != u.filter.vector) u.set_vector(s.tl, vector);
    }
    for (auto [label, what] : {std::pair{"finding", JumpTarget::Finding}, {"injection", JumpTarget::Injection}, {"EOI", JumpTarget::Eoi}}) {
        same_line_if_fits(arrows_width(label));
        ImGui::PushID(label);
        if (ImGui::ArrowButton("prev", ImGuiDir_Left)) jump(s, u, what, false);
        ImGui::SameLine(0, 2);
        ImGui::TextUnformatted(label);
        ImGui::SameLine(0, 2);
        if (ImGui::ArrowButton("next", ImGuiDir_Right)) jump(s, u, what, true);
        ImGui::PopID();
    }
    search_bar(s, u);
    // vCPU filter: a checkbox per lane, in rows as wide as the panel
    for (std::size_t l = 0; l < s.tl.lanes.size(); ++l) {
        char label[48];
        std::snprintf(label, sizeof label, "vm%d/vcpu%d", s.tl.lanes[l].vm.value(), s.tl.lanes[l].vcpu.value());
        same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
        bool shown = u.filter.lane_shown[l];
        if (ImGui::Checkbox(label, &shown) && (shown || u.filter.row_count() > 1)) u.set_lane_shown(static_cast<int>(l), shown);
    }
}

void jump_keys(const Session& s, UiState& u) {
    if (ImGui::IsKeyPressed(GLFW_KEY_F3)) search_step(s, u, !ImGui::GetIO().KeyShift);  // in the search box too
    if (ImGui::GetIO().WantTextInput) return;
    const bool back = ImGui::GetIO().KeyShift;
    // ImGui 1.86 indexes keys by the backend's (GLFW) key codes
    if (ImGui::IsKeyPressed(GLFW_KEY_N)) jump(s, u, JumpTarget::Finding, true);
    if (ImGui::IsKeyPressed(GLFW_KEY_P)) jump(s, u, JumpTarget::Finding, false);
    if (ImGui::IsKeyPressed(GLFW_KEY_I)) jump(s, u, JumpTarget::Injection, !back);
    if (ImGui::IsKeyPressed(GLFW_KEY_E)) jump(s, u, JumpTarget::Eoi, !back);
}

}  // namespace irqflow::gui
