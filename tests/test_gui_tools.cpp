// The window's tools without a window: go-to, markers A/B and the selection's
// statistics, search, serial labels, unsynced stretches; each checked on a real capture
// against a brute-force count over the trace.
#include <catch2/catch.hpp>
#include <imgui.h>

#include <cfloat>
#include <memory>

#include "events_model.hpp"
#include "go_to.hpp"
#include "helpers.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "search_model.hpp"
#include "selection_model.hpp"
#include "serial_labels.hpp"
#include "session.hpp"
#include "statistics_model.hpp"
#include "time_axis.hpp"
#include "ui_state.hpp"

using namespace irqflow;
using namespace irqflow::test;
using namespace irqflow::gui;

namespace {

const Session& session(const std::string& name, const std::string& serial = "") {
    static std::map<std::string, std::unique_ptr<Session>> loaded;
    auto& s = loaded[name + serial];
    if (!s) {
        LoadProgress progress;
        SessionSource src;
        src.path = sample(name);
        if (!serial.empty()) src.serial = sample(serial);
        s = load_session(src, progress);
    }
    return *s;
}

}  // namespace

TEST_CASE("go-to zooms to its target, pins the cursor on the event's vCPU and selects its row", "[gui][goto]") {
    const Session& s = session("pveoi-on.dat");
    UiState u(s);
    const auto target = go_to_target(s.trace, "#104904");  // an NPF exit of vCPU 2
    REQUIRE(target);
    REQUIRE(target->event);
    go_to(s, u, target->ts, target->event);
    const auto& v = u.nav.view();
    CHECK(v.t1 - v.t0 == kGoToSpanNs);
    CHECK(v.t0 + (v.t1 - v.t0) / 2 == target->ts);
    CHECK(u.pinned);
    CHECK(u.shown_ts == target->ts);
    CHECK(u.shown_lane == 2);
    CHECK(u.selected_event == target->event);
    CHECK(u.scroll_to_selected);
    CHECK(u.open_tab == "events");
    // the events tab lists the view: the selected event has a row there
    const EventRows rows = events_in_view(s.trace, u.lanes, u.filter, v);
    const auto row = rows.row_of(*target->event);
    REQUIRE(row);
    CHECK(s.trace.events[rows.at(*row)].record == 104904);
    // a narrower view stays as narrow; a time selects the first event at or after it
    u.nav.set(target->ts, target->ts + 20'000);
    go_to(s, u, target->ts + 5, std::nullopt, true);
    CHECK(u.nav.view().t1 - u.nav.view().t0 == 20'000);
    REQUIRE(u.selected_event);
    CHECK(s.trace.events.ts(*u.selected_event).value() >= target->ts + 5);
    CHECK(s.trace.events.ts(*u.selected_event - 1).value() < target->ts + 5);
    CHECK(u.open_tab == "events");  // unchanged by a link that keeps the tab (it was set before)
}

TEST_CASE("the selection between markers A and B counts what a scan of the trace counts", "[gui][selection]") {
    const Session& s = session("pveoi-on.dat");
    const LaneLookup lanes(s.tl);
    const Filter all = Filter::all(s.tl);
    // the whole trace: the replay's own totals
    const RangeStats whole = range_stats(s, lanes, all, s.tl.t1, s.tl.t0);  // either order
    CHECK(whole.t0 == s.tl.t0);
    CHECK(whole.exits == s.replay.stats.exits);
    CHECK(whole.exits_by_reason == s.replay.stats.exits_by_reason);
    CHECK(whole.pv_eois == s.replay.stats.pv_eois);
    // a stretch in the middle, and vCPU 1 alone, against a scan of the events
    const std::int64_t a = 20'250'000'000, b = 20'300'000'000;
    Filter one = all;
    for (std::size_t l = 0; l < one.lane_shown.size(); ++l) one.lane_shown[l] = l == 1;
    const RangeStats r = range_stats(s, lanes, one, a, b);
    std::uint64_t exits = 0, injections = 0, hlt = 0;
    for (std::size_t i = 0; i < s.trace.events.size(); ++i) {
        const Event e = s.trace.events[i];
        if (e.ts.value() < a || e.ts.value() > b || lanes(e.vm, e.vcpu) != 1) continue;
        exits += e.kind == EventKind::Exit;
        hlt += e.kind == EventKind::Exit && exit_reason_key(e) == "EXIT_HLT";
        injections += e.kind == EventKind::InjVirq;
    }
    CHECK(exits > 10);
    CHECK(r.exits == exits);
    CHECK((r.exits_by_reason.count("EXIT_HLT") ? r.exits_by_reason.at("EXIT_HLT") : 0) == hlt);
    CHECK(r.injections == injections);
    // time in each state adds up to the range on the one lane that ran throughout
    CHECK(r.time_in_state[0] + r.time_in_state[1] + r.time_in_state[2] == b - a);
    // latencies: the interrupts injected in the range on vCPU 1
    std::vector<std::int64_t> to_inject;
    for (const auto& ir : s.replay.interrupts)
        if (lanes(ir.vm, ir.vcpu) == 1 && ir.inject_ts >= a && ir.inject_ts <= b && ir.accept_ts && ir.accept_ts <= ir.inject_ts)
            to_inject.push_back(ir.inject_ts - ir.accept_ts);
    REQUIRE(!to_inject.empty());
    CHECK(r.accept_to_inject.samples == to_inject.size());
    CHECK(r.accept_to_inject.max == *std::max_element(to_inject.begin(), to_inject.end()));
    // findings on a mutated capture land in the rule's row
    const LatencySummary l = summarize({5, 1, 3, 2, 4});
    CHECK(l.p50 == 3);
    CHECK(l.max == 5);
}

TEST_CASE("search finds events by name, field value, vector and rule, and steps through them", "[gui][search]") {
    const Session& s = session("pveoi-on.dat");
    std::string error;
    auto count = [&](std::string_view q) {
        const auto terms = parse_search(s, q, error);
        INFO(q << ": " << error);
        REQUIRE(terms);
        return search_events(s, *terms);
    };
    std::size_t exits = 0, npf = 0, hlt_by_code = 0, vec_ec = 0, injections_fd = 0;
    for (std::size_t i = 0; i < s.trace.events.size(); ++i) {
        const Event e = s.trace.events[i];
        exits += e.kind == EventKind::Exit;
        npf += e.kind == EventKind::Exit && exit_reason_key(e) == "EXIT_NPF";
        hlt_by_code += e.kind == EventKind::Exit && exit_reason_key(e) == "EXIT_HLT";
        vec_ec += event_vector(e) == 0xec;
        injections_fd += e.kind == EventKind::InjVirq && e.get(slot::inj_vector) == 0xfd;
    }
    CHECK(count("kvm_exit").size() == exits);
    CHECK(count("kvm_exit exit_reason=NPF").size() == npf);
    CHECK(count("exit_reason=npf").size() == npf);          // names in any case
    CHECK(count("exit_reason=0x78").size() == hlt_by_code);  // SVM's HLT exit code
    CHECK(count("0xec").size() == vec_ec);
    CHECK(count("kvm_inj_virq vector=0xfd").size() == injections_fd);
    CHECK(npf > 0);
    CHECK(vec_ec > 0);
    // terms that mean nothing say so
    for (const char* bad : {"kvm_nosuch", "nosuchfield=1", "0x1ff", "exit_reason="}) {
        error.clear();
        CHECK_FALSE(parse_search(s, bad, error));
        CHECK(!error.empty());
    }
    // next / previous: from the view's centre, then one by one
    const auto npfs = count("exit_reason=NPF");
    const std::int64_t mid = s.trace.events.ts(npfs[npfs.size() / 2]).value();
    const auto first = step_match(s.trace, npfs, std::nullopt, mid, true);
    REQUIRE(first);
    CHECK(s.trace.events.ts(npfs[*first]).value() >= mid);
    CHECK((*first == 0 || s.trace.events.ts(npfs[*first - 1]).value() < mid));
    CHECK(step_match(s.trace, npfs, first, mid, true) == *first + 1);
    CHECK(step_match(s.trace, npfs, first, mid, false) == *first - 1);
    CHECK_FALSE(step_match(s.trace, npfs, npfs.size() - 1, mid, true));
    CHECK_FALSE(step_match(s.trace, npfs, std::size_t{0}, mid, false));
}

TEST_CASE("search by rule lists the events its findings point at", "[gui][search]") {
    LoadProgress progress;
    SessionSource src;
    src.path = sample("pveoi-on.dat");
    auto s = load_session(src, progress);
    // findings are the replay's: give this healthy capture one to find
    replay::Finding f;
    f.rule = replay::RuleId::InjNotPending;
    f.record = 104904;
    f.ts = s->trace.events.ts(*event_of_record(s->trace, 104904));
    s->replay.findings.push_back(f);
    std::string error;
    const auto terms = parse_search(*s, "INJ-NOT-PENDING", error);
    REQUIRE(terms);
    const auto hits = search_events(*s, *terms);
    REQUIRE(hits.size() == 1);
    CHECK(s->trace.events[hits[0]].record == 104904);
    const auto none = parse_search(*s, "INJ-NOT-HIGHEST", error);
    REQUIRE(none);
    CHECK(search_events(*s, *none).empty());
}

TEST_CASE("serial texts end before the next line's tick, cut with ... where they would not fit", "[gui][serial]") {
    // 0.1 px per ns: ticks at 190, 390, 392 and 460 px
    const std::vector<SerialMark> lines = {{1000, "first line of text"}, {3000, "second"}, {3020, "third, far too close"}, {3700, "last line"}};
    const Layout L{1090, 100, 0, 10000};
    const TextWidth monospace = [](std::string_view t) { return 7.0f * static_cast<float>(t.size()); };
    const auto labels = serial_labels(lines, L, monospace);
    REQUIRE(labels.size() == 4);
    for (std::size_t i = 0; i + 1 < labels.size(); ++i) {
        INFO(i);
        CHECK(labels[i].x < labels[i + 1].x);
        if (!labels[i].text.empty()) CHECK(labels[i].x + 3 + 7 * static_cast<float>(labels[i].text.size()) <= labels[i + 1].x);  // never over the next tick
    }
    CHECK(labels[0].text == "first line of text");  // 200 px of room: whole
    CHECK(labels[1].text.empty());                    // 2 px to the next tick: the tick alone
    CHECK(labels[2].text == "third...");              // 62 px: 8 characters
    CHECK(labels[3].text == "last line");
}

namespace {

// The window's own font (ImGui's default, as irqflow-gui draws with it), measured without
// a window: the atlas builds on demand.
TextWidth window_font() {
    static ImGuiContext* ctx = [] {
        ImGuiContext* c = ImGui::CreateContext();
        unsigned char* px = nullptr;
        int w = 0, h = 0;
        ImGui::GetIO().Fonts->GetTexDataAsAlpha8(&px, &w, &h);
        return c;
    }();
    ImGui::SetCurrentContext(ctx);
    ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
    return [font](std::string_view t) { return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, t.data(), t.data() + t.size()).x; };
}

}  // namespace

TEST_CASE("serial labels never overlap in the window's font, whatever the lines hold and at any zoom", "[gui][serial]") {
    const TextWidth width = window_font();
    // every sample's console, as logged and as a boot's colours and tabs would make it
    std::size_t checked = 0, cut = 0;
    for (const std::string name : {"pveoi-on", "pvspin", "lossy", "hyperv"}) {
        const Session& s = session(name + ".dat", name + "-serial.log");
        REQUIRE(s.tl.serial.size() >= 10);
        std::vector<SerialMark> dressed = s.tl.serial;
        for (std::size_t i = 0; i < dressed.size(); ++i)
            if (i % 2) dressed[i].text = "\x1b[0;32m  OK  \x1b[0m]\tStarted\t" + dressed[i].text + "\r";
        for (const std::vector<SerialMark>* lines : {&s.tl.serial, static_cast<const std::vector<SerialMark>*>(&dressed)})
            for (const float w : {700.0f, 1400.0f})
                for (const std::int64_t span : {std::int64_t{0}, std::int64_t{2'000'000'000}, std::int64_t{300'000'000}, std::int64_t{50'000'000}}) {
                    // the whole trace, then windows of `span` centred on each line
                    const std::size_t views = span ? lines->size() : 1;
                    for (std::size_t v = 0; v < views; ++v) {
                        const Layout L = span ? Layout{w, 400, (*lines)[v].ts - span / 2, (*lines)[v].ts + span / 2} : Layout{w, 400, s.tl.t0, s.tl.t1};
                        const auto labels = serial_labels(*lines, L, width);
                        for (std::size_t i = 0; i < labels.size(); ++i) {
                            if (labels[i].text.empty()) continue;
                            const float end = labels[i].x + kSerialTextGap + width(labels[i].text);
                            const float next = i + 1 < labels.size() ? labels[i + 1].x : L.width;
                            INFO(name << " width " << w << " span " << span << " line " << labels[i].line << ": " << labels[i].text);
                            CHECK(end <= next - kSerialTextGap + 0.01f);
                            CHECK(labels[i].text.find_first_of("\x1b\t\r") == std::string::npos);  // drawn as measured
                            ++checked;
                            cut += labels[i].text.size() >= 3 && labels[i].text.compare(labels[i].text.size() - 3, 3, "...") == 0;
                        }
                    }
                }
    }
    CHECK(checked > 1000);
    CHECK(cut > 100);  // the cases that matter: a text that had to be cut to its room
    // a tab is as wide as the spaces to the next multiple of 8 columns; escapes are gone
    CHECK(display_text("\x1b[1;31mFAILED\x1b[0m\tx\x07") == "FAILED  x.");
    CHECK(display_text("ab\tc") == "ab      c");
    // a cut never splits a UTF-8 character
    const std::vector<SerialMark> utf8 = {{0, "t\xc3\xa9l\xc3\xa9phone \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9 \xc3\xa9t\xc3\xa9"}, {1000, "next"}};
    for (float room = 40; room < 200; room += 1) {
        const auto labels = serial_labels(utf8, Layout{Layout::kGutter + room * 2, 100, 0, 2000}, width);
        const std::string& t = labels[0].text;
        INFO(room << ": " << t);
        if (t.size() > 3) CHECK((static_cast<unsigned char>(t[t.size() - 4]) & 0xc0) != 0xc0);  // no lead byte left without its tail
    }
}

TEST_CASE("axis labels never overlap: the last flips left of its tick only where it has room, none covers the base", "[gui][axis]") {
    // ticks 80 px apart, labels 56 px wide, the view ends 20 px after the last tick
    const std::vector<float> x = {100, 180, 260, 340}, w = {56, 56, 56, 56};
    const auto fits = tick_label_x(x, w, 90, 360);
    REQUIRE(fits.size() == 4);
    CHECK(fits[0] == 103);
    CHECK(fits[2] == 263);
    CHECK(!fits[3]);  // left of its tick it would touch the label of 260; right of it, run past 360
    const auto flips = tick_label_x({100, 180, 260, 340}, {56, 56, 10, 56}, 90, 360);
    CHECK(flips[3] == 340 - 3 - 56);  // room left of it: drawn there
    const auto based = tick_label_x(x, w, 140, 1000);  // a base text reaching to 140
    CHECK(!based[0]);
    CHECK(based[1] == 183);
    const auto marked = tick_label_x(x, w, 90, 1000, {{172, 190}});  // a marker's flag or the B-A distance at 172..190
    CHECK(marked[0] == 103);                                         // ends 13 px before it
    CHECK(!marked[1]);
    CHECK(marked[2] == 263);
    // and on the axis of a real view, in the window's font
    const TextWidth width = window_font();
    for (const float view_w : {300.0f, 700.0f, 1400.0f})
        for (const std::int64_t t1 : {std::int64_t{19'000'000'000}, std::int64_t{13'000'123'457}, std::int64_t{12'100'000'000}}) {
            const std::int64_t t0 = 12'090'000'000;
            const TimeAxis axis = time_axis(t0, t1, t0, view_w - Layout::kGutter, false);
            const Layout L{view_w, 100, t0, t1};
            std::vector<float> tx, tw;
            for (const auto& t : axis.ticks) tx.push_back(L.x(t.ts)), tw.push_back(width(t.label));
            const auto at = tick_label_x(tx, tw, 4 + width(axis.base), L.width);
            float end = 4 + width(axis.base);
            std::size_t placed = 0;
            for (std::size_t i = 0; i < at.size(); ++i) {
                if (!at[i]) continue;
                INFO(view_w << " " << t1 << " " << axis.ticks[i].label);
                CHECK(*at[i] >= end);
                CHECK(*at[i] + tw[i] <= L.width);
                end = *at[i] + tw[i];
                ++placed;
            }
            CHECK(placed + 1 >= axis.ticks.size());  // at most the last is left out
        }
}

TEST_CASE("lanes shade where the replay did not know a vCPU's state: every vCPU after lost.dat's drop", "[gui][unsynced]") {
    const Session& s = session("lost.dat");
    REQUIRE(s.tl.gaps.size() == 1);
    const auto& gap = s.tl.gaps[0];
    for (const auto& lane : s.tl.lanes) {
        INFO("vcpu " << lane.vcpu.value());
        // a stretch that covers the marker and runs on after it
        const auto it = std::find_if(lane.unsynced.begin(), lane.unsynced.end(), [&](const Lane::Span& sp) { return sp.start <= gap.end && sp.end > gap.end; });
        REQUIRE(it != lane.unsynced.end());
        CHECK(it->start >= gap.start);
        for (std::size_t i = 1; i < lane.unsynced.size(); ++i) CHECK(lane.unsynced[i - 1].end <= lane.unsynced[i].start);
    }
    // every event counted as unsynced lies in a stretch of its vCPU
    const LaneLookup lanes(s.tl);
    std::uint64_t inside = 0;
    for (const auto& lane : s.tl.lanes)
        for (const auto& sp : lane.unsynced) CHECK(sp.start <= sp.end);
    for (std::size_t i = 0; i < s.trace.events.size(); ++i) {
        const Event e = s.trace.events[i];
        const int l = lanes(e.vm, e.vcpu);
        if (l < 0) continue;
        const auto& spans = s.tl.lanes[static_cast<std::size_t>(l)].unsynced;
        for (const auto& sp : spans)
            if (e.ts.value() >= sp.start && e.ts.value() < sp.end) {
                ++inside;
                break;
            }
    }
    CHECK(inside >= s.replay.stats.unsynced_events / 2);
    CHECK(unsynced_row(s.tl).value != "none");
    CHECK(unsynced_row(session("pveoi-on.dat").tl).value.find("stretch") != std::string::npos);  // until the boot proves each vCPU
}
