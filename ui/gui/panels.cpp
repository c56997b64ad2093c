#include "panels.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "event_format.hpp"
#include "finding_format.hpp"
#include "go_to.hpp"
#include "search.hpp"
#include "time_axis.hpp"

namespace irqflow::gui {
namespace {

using ull = unsigned long long;

double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

void go(UiState& u, std::optional<std::int64_t> ts) {
    if (ts) u.nav.centre_on(*ts);
}

// A record named in a panel (a finding's chain, the inspector's accept / inject / EOI):
// go there and select its row, leaving the panel where it is.
void go_to_record(const Session& s, UiState& u, std::uint64_t record) {
    if (const auto i = event_of_record(s.trace, record)) go_to(s, u, s.trace.events.ts(*i).value(), i, true);
}

void jump(const Session& s, UiState& u, JumpTarget what, bool forward) {
    const auto& v = u.nav.view();
    go(u, find_next(s.tl, u.filter, what, v.t0 + (v.t1 - v.t0) / 2, forward));
}

// "12.5s", "300ms", "#1234" (raw record) or a bare number of seconds.
void go_to_text(const Session& s, UiState& u) {
    const std::string t = u.goto_text;
    const auto target = go_to_target(s.trace, t);
    u.goto_error.clear();
    if (!target) u.goto_error = !t.empty() && t[0] == '#' ? "no record " + t : "a time (12.5s, 300ms, 17us) or #record";
    else go_to(s, u, target->ts, target->event);
}

// Runs the search box's query (when it changed) and goes to the next or previous match.
void search_step(const Session& s, UiState& u, bool forward) {
    if (u.searched != u.search_text) {
        u.searched = u.search_text;
        u.search_error.clear();
        u.matches = EventRows{};
        u.match.reset();
        const auto terms = parse_search(s, u.searched, u.search_error);
        if (!terms) return;
        u.matches.filtered = true;
        u.matches.picked = search_events(s, *terms);
        if (u.print_view) std::printf("search %s: %zu matches\n", u.searched.c_str(), u.matches.picked.size());
    }
    const auto& v = u.nav.view();
    const auto next = step_match(s.trace, u.matches.picked, u.match, v.t0 + (v.t1 - v.t0) / 2, forward);
    if (!next) return;  // no match that way: stay on the current one
    u.match = next;
    const std::size_t i = u.matches.picked[*next];
    go_to(s, u, s.trace.events.ts(i).value(), i);
    if (u.print_view) std::printf("match %zu record %llu\n", *next, static_cast<ull>(s.trace.events.record(i)));
}

void search_bar(const Session& s, UiState& u) {
    ImGui::SetNextItemWidth(330);
    if (u.focus_search) {
        ImGui::SetKeyboardFocusHere();
        u.focus_search = false;
    }
    if (ImGui::InputTextWithHint("##search", "search: kvm_exit exit_reason=HLT 0xec INJ-NOT-PENDING", u.search_text, sizeof u.search_text,
                                 ImGuiInputTextFlags_EnterReturnsTrue))
        search_step(s, u, true);
    ImGui::SameLine();
    if (ImGui::ArrowButton("prev-match", ImGuiDir_Left)) search_step(s, u, false);
    ImGui::SameLine(0, 2);
    if (ImGui::ArrowButton("next-match", ImGuiDir_Right)) search_step(s, u, true);
    ImGui::SameLine();
    if (!u.search_error.empty()) {
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.search_error.c_str());
    } else if (!u.searched.empty()) {
        if (u.match) ImGui::Text("match %zu of %zu", *u.match + 1, u.matches.size());
        else ImGui::Text("%zu matches", u.matches.size());
        ImGui::SameLine();
        if (ImGui::SmallButton("clear")) {
            u.search_text[0] = 0;
            u.searched.clear();
            u.matches = EventRows{};
            u.match.reset();
        }
    }
}

void navigation_bar(const Session& s, UiState& u) {
    ImGui::SetNextItemWidth(140);
    if (u.focus_goto) {
        ImGui::SetKeyboardFocusHere();
        u.focus_goto = false;
    }
    if (ImGui::InputTextWithHint("##goto", "time or #record", u.goto_text, sizeof u.goto_text, ImGuiInputTextFlags_EnterReturnsTrue))
        go_to_text(s, u);
    ImGui::SameLine();
    if (ImGui::Button("Go")) go_to_text(s, u);
    if (!u.goto_error.empty()) {
        ImGui::SameLine();
        ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", u.goto_error.c_str());
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(70);
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
        ImGui::SameLine();
        ImGui::PushID(label);
        if (ImGui::ArrowButton("prev", ImGuiDir_Left)) jump(s, u, what, false);
        ImGui::SameLine(0, 2);
        ImGui::TextUnformatted(label);
        ImGui::SameLine(0, 2);
        if (ImGui::ArrowButton("next", ImGuiDir_Right)) jump(s, u, what, true);
        ImGui::PopID();
    }
    search_bar(s, u);
    // vCPU filter: a checkbox per lane
    for (std::size_t l = 0; l < s.tl.lanes.size(); ++l) {
        if (l) ImGui::SameLine();
        char label[48];
        std::snprintf(label, sizeof label, "vm%d/vcpu%d", s.tl.lanes[l].vm.value(), s.tl.lanes[l].vcpu.value());
        bool shown = u.filter.lane_shown[l];
        if (ImGui::Checkbox(label, &shown) && (shown || u.filter.row_count() > 1)) u.set_lane_shown(static_cast<int>(l), shown);
    }
}

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

void statistics_tab(const Session& s, UiState& u) {
    const auto& st = s.replay.stats;
    // the replay's statistics (one list for the CLI, the database and here), then the
    // exits by reason per shown vCPU
    auto rows = statistics_rows(s.replay);
    rows.insert(rows.begin(), {lost_events_row(s.tl), unsynced_row(s.tl)});
    ImGui::BeginChild("summary", ImVec2(std::min(520.0f, ImGui::GetContentRegionAvail().x * 0.5f), 0));
    if (ImGui::BeginTable("summary", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit)) {
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
    if (!ImGui::BeginTable("exits", static_cast<int>(cols.size()) + 2,
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupScrollFreeze(0, 1);
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

void histogram(const char* title, const LatencyHistogram& h) {
    ImGui::Text("%s: %llu samples", title, static_cast<ull>(h.samples));
    if (h.samples == 0) return;
    std::vector<float> v;
    for (int k = h.first; k <= h.last; ++k) v.push_back(static_cast<float>(h.count[static_cast<std::size_t>(k)]));
    auto unit = [](int k, char* buf, std::size_t n) {
        const double ns = static_cast<double>(std::uint64_t{1} << k);
        if (ns < 1e3) std::snprintf(buf, n, "%.0fns", ns);
        else if (ns < 1e6) std::snprintf(buf, n, "%.0fus", ns / 1e3);
        else if (ns < 1e9) std::snprintf(buf, n, "%.0fms", ns / 1e6);
        else std::snprintf(buf, n, "%.0fs", ns / 1e9);
    };
    char lo[16], hi[16], overlay[64];
    unit(h.first, lo, sizeof lo);
    unit(h.last + 1, hi, sizeof hi);
    std::snprintf(overlay, sizeof overlay, "%s .. %s (log2 buckets)", lo, hi);
    ImGui::PushID(title);
    ImGui::PlotHistogram("##h", v.data(), static_cast<int>(v.size()), 0, overlay, 0, FLT_MAX, ImVec2(ImGui::GetContentRegionAvail().x, 70));  // 1.86: no -1 width here
    if (ImGui::IsItemHovered()) {
        const float rel = (ImGui::GetIO().MousePos.x - ImGui::GetItemRectMin().x) / ImGui::GetItemRectSize().x;
        const int k = h.first + std::clamp(static_cast<int>(rel * static_cast<float>(v.size())), 0, static_cast<int>(v.size()) - 1);
        unit(k, lo, sizeof lo);
        unit(k + 1, hi, sizeof hi);
        ImGui::SetTooltip("%s .. %s: %llu", lo, hi, static_cast<ull>(h.count[static_cast<std::size_t>(k)]));
    }
    ImGui::PopID();
}

void latency_tab(const Session& s, UiState& u) {
    if (!u.latency)
        u.latency = {latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::AcceptToInject),
                     latency_histogram(s.replay, u.lanes, u.filter, LatencyStage::InjectToEoi)};
    if (u.filter.vector >= 0) ImGui::Text("vector 0x%02x, shown vCPUs", u.filter.vector);
    else ImGui::TextUnformatted("all vectors, shown vCPUs (set a vector above to narrow)");
    histogram("accept -> inject", u.latency->first);
    histogram("inject -> EOI", u.latency->second);
}

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
    // the row of the event a go-to selected, if this view and filter list it
    const std::optional<std::size_t> selected_row = u.selected_event ? rows.row_of(*u.selected_event) : std::nullopt;
    ImGuiListClipper clip;  // only the rows on screen are formatted
    clip.Begin(static_cast<int>(rows.size()));
    if (selected_row && u.scroll_to_selected) clip.ForceDisplayRangeByIndices(static_cast<int>(*selected_row), static_cast<int>(*selected_row) + 1);
    while (clip.Step())
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
            const std::size_t index = rows.at(static_cast<std::size_t>(i));
            const Event& e = s.trace.events[index];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            char buf[48];
            std::snprintf(buf, sizeof buf, "%llu##%d", static_cast<ull>(e.record), i);
            const bool selected = selected_row && *selected_row == static_cast<std::size_t>(i);
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

// One 16x16 grid of a 256-bit register; returns the vector under the mouse or -1.
int vector_grid(const char* title, const replay::VectorSet& set, bool by_vector_colour, int pinned, ImVec2* origin = nullptr) {
    ImGui::TextUnformatted(title);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    if (origin) *origin = p;
    const float cell = 9;
    int hovered = -1;
    for (int v = 0; v < 256; ++v) {
        const ImVec2 a(p.x + static_cast<float>(v % 16) * cell, p.y + static_cast<float>(v / 16) * cell);
        const ImVec2 b(a.x + cell - 1, a.y + cell - 1);
        const std::uint32_t on = by_vector_colour ? vector_color(v) : 0xffe0e0e0;
        dl->AddRectFilled(a, b, set.test(v) ? on : 0xff3a3a3a);
        if (v == pinned) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), 0xffffffff);
        if (ImGui::IsMouseHoveringRect(a, b)) hovered = v;
    }
    ImGui::Dummy(ImVec2(16 * cell, 16 * cell));
    return hovered;
}

}  // namespace

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
    ImGui::Columns(3, nullptr, false);
    const int irr = vector_grid("IRR", st.irr, false, -1);
    ImGui::NextColumn();
    ImVec2 isr_at;
    const int isr = vector_grid("ISR (click a bit)", st.isr, true, u.pinned_vector, &isr_at);
    if (u.print_view && !u.printed_grid) {  // where the cells are, for tests that click one (9 px each, 16 a row)
        std::printf("isr-grid %.0f %.0f\n", isr_at.x, isr_at.y);
        u.printed_grid = true;
    }
    ImGui::NextColumn();
    const int tmr = vector_grid("TMR", st.tmr, false, -1);
    ImGui::Columns(1);
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
