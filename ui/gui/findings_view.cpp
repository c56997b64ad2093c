// The findings tab: each root finding with its diagnosis sentence and alternatives, its
// follow-ons folded under it, and its chain of records, each a link.
#include <imgui.h>

#include <cstdio>
#include <string>

#include "finding_format.hpp"
#include "findings_model.hpp"
#include "go_to.hpp"
#include "panels_view.hpp"

namespace irqflow::gui {
namespace {

// A diagnosis clicked: the timeline shows its window, markers A and B at its ends (the
// selection tab then counts what lies between), the events tab on its first record.
void select_window(const Session& s, UiState& u, const replay::Explanation& x) {
    const DiagnosisWindow w = diagnosis_window(x);
    u.nav.set(w.t0, w.t1);
    u.mark_a = w.mark_a;
    u.mark_b = w.mark_b;
    if (const auto i = event_of_record(s.trace, x.from)) {
        u.selected_event = i;
        u.scroll_to_selected = true;
    }
    if (u.print_view) std::printf("marks %lld %lld\n", static_cast<long long>(w.mark_a), static_cast<long long>(w.mark_b));
}

// A root's diagnosis sentence under its line, and its alternatives ("or: …"); a click
// on one selects its window.
void diagnosis_line(const Session& s, UiState& u, std::size_t i) {
    const auto& d = *s.replay.findings[i].diagnosis;
    ImGui::Indent();
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.45f, 1));
    const std::string top = replay::sentence(d.top, ui::record_namer(s.trace));
    ImGui::PushTextWrapPos(0);
    char id[64];  // "##alternative" and two 20-digit indices
    std::snprintf(id, sizeof id, "##diagnosis%zu", i);
    // a wrapped selectable: the text drawn over an item as tall as it
    const float h = ImGui::CalcTextSize(top.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y;
    const ImVec2 at = ImGui::GetCursorPos();
    if (ImGui::Selectable(id, false, 0, ImVec2(0, h))) select_window(s, u, d.top);
    if (u.print_view && u.printed_diagnosis.insert(i).second) {
        const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
        std::printf("diagnosis %zu %d %d %d %d\n", i, static_cast<int>(a.x), static_cast<int>(a.y), static_cast<int>(b.x), static_cast<int>(b.y));
    }
    ImGui::SetCursorPos(at);
    ImGui::TextWrapped("%s", top.c_str());
    ImGui::PopStyleColor();
    for (std::size_t k = 0; k < d.alternatives.size(); ++k) {
        const std::string alt = "or: " + replay::sentence(d.alternatives[k], ui::record_namer(s.trace));
        std::snprintf(id, sizeof id, "##alternative%zu.%zu", i, k);
        const float ah = ImGui::CalcTextSize(alt.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y;
        const ImVec2 p = ImGui::GetCursorPos();
        if (ImGui::Selectable(id, false, 0, ImVec2(0, ah))) select_window(s, u, d.alternatives[k]);
        ImGui::SetCursorPos(p);
        ImGui::TextWrapped("%s", alt.c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::Unindent();
}

// One finding: a line that jumps to it, opening to what was expected and observed, what
// the model adopted, and the chain of records that built the expectation (each one a
// jump too). Returns whether it is open (the caller pops it).
bool finding_node(const Session& s, UiState& u, std::size_t i, const char* suffix) {
    const auto& f = s.replay.findings[i];
    const auto& info = replay::rule_info(f.rule);
    char line[280];
    std::snprintf(line, sizeof line, "%.9f  vm%d/vcpu%d  %s (%s)  record %llu%s##%zu", secs(f.ts.value()), f.vm.value(), f.vcpu.value(),
                  std::string(info.id).c_str(), replay::to_string(info.severity), static_cast<ull>(f.record), suffix, i);
    const bool open = ImGui::TreeNodeEx(line, ImGuiTreeNodeFlags_SpanAvailWidth);
    const bool diagnosed = f.diagnosis && !f.caused_by;
    if (ImGui::IsItemClicked()) {
        if (diagnosed) select_window(s, u, f.diagnosis->top);
        else u.nav.centre_on(f.ts.value());
    }
    if (diagnosed) diagnosis_line(s, u, i);  // what most likely happened, shown open or closed
    if (!open) return false;
    ImGui::TextWrapped("%s", std::string(info.summary).c_str());
    ImGui::TextWrapped("expected: %s", f.expected.c_str());
    ImGui::TextWrapped("observed: %s", f.observed.c_str());
    if (!f.resync.empty()) ImGui::TextWrapped("model re-synchronized: %s", f.resync.c_str());
    for (std::size_t k = 0; k < f.chain.size(); ++k) {
        std::snprintf(line, sizeof line, "record %llu: %s##%zu.%zu", static_cast<ull>(f.chain[k].first), f.chain[k].second.c_str(), i, k);
        if (ImGui::Selectable(line)) go_to_record(s, u, f.chain[k].first);
    }
    return true;
}

}  // namespace

// Root findings, each with its follow-ons collapsed under it: one fault, one line.
void findings_tab(const Session& s, UiState& u) {
    const auto& r = s.replay;
    if (r.findings.empty()) ImGui::TextUnformatted("no divergences or liveness failures");
    for (const auto& g : finding_groups(r)) {
        char more[48] = "";
        if (!g.follow_ons.empty()) std::snprintf(more, sizeof more, "  + %zu follow-on%s", g.follow_ons.size(), g.follow_ons.size() == 1 ? "" : "s");
        if (!finding_node(s, u, g.root, more)) continue;
        if (!g.follow_ons.empty()) {
            char label[64];
            std::snprintf(label, sizeof label, "%zu follow-on finding%s this fault explains##fo%zu", g.follow_ons.size(),
                          g.follow_ons.size() == 1 ? "" : "s", g.root);
            if (ImGui::TreeNode(label)) {
                for (auto i : g.follow_ons)
                    if (finding_node(s, u, i, "")) ImGui::TreePop();
                ImGui::TreePop();
            }
        }
        ImGui::TreePop();
    }
}

}  // namespace irqflow::gui
