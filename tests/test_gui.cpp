// irqflow-gui under Xvfb: a real window, a real frame, and its pixels.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "findings_model.hpp"
#include "go_to.hpp"
#include "guest_spans.hpp"
#include "hover.hpp"
#include "gui_window.hpp"
#include "helpers.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "search_model.hpp"
#include "selection_model.hpp"
#include "session.hpp"
#include "timeline_model.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

Image screenshot(const std::string& trace, const std::string& range, int w, int h) {
    return shoot("--range " + range + " --size " + std::to_string(w) + "x" + std::to_string(h) + " '" + trace + "'",
                 "shot-" + std::to_string(w));
}

}  // namespace

TEST_CASE("a screenshot of a real capture shows each vCPU's lane and its ISR bars in the vector's colour", "[gui]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    const std::int64_t a = 19'800'000'000, b = 20'400'000'000;
    Image img = screenshot(sample("pveoi-on.dat"), "19.8:20.4", 1400, 330);
    REQUIRE(img.w == 1400);
    REQUIRE(img.h == 330);
    Trace t = load_trace(sample("pveoi-on.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    auto r = replay::replay(t, o);
    gui::Timeline tl = gui::build_timeline(t, r, nullptr);
    gui::Layout L{1400, 330, a, b};
    REQUIRE(tl.lanes.size() == 4);
    for (int l = 0; l < 4; ++l) {
        // the state band of every vCPU: guest, host or halted colour in most columns
        int banded = 0;
        const int y = static_cast<int>(L.band_y(l)) + 5;
        for (int x = static_cast<int>(gui::Layout::kGutter); x < img.w; ++x) {
            const auto c = img.at(x, y);
            banded += c == gui::state_color(gui::VcpuState::Guest) || c == gui::state_color(gui::VcpuState::Host) ||
                      c == gui::state_color(gui::VcpuState::Halted);
        }
        INFO("lane " << l);
        CHECK(banded > (img.w - 90) * 8 / 10);
    }
    // every ISR bar at least 6 px wide shows its vector's colour near its end (IPI lines
    // may cross a few of them)
    int bars = 0, matching = 0;
    for (int l = 0; l < 4; ++l)
        for (const auto& bar : tl.lanes[static_cast<std::size_t>(l)].isr) {
            if (bar.start < a || bar.end > b || bar.depth != 1 || L.x(bar.end) - L.x(bar.start) < 6) continue;
            ++bars;
            const int x = static_cast<int>(L.x(bar.end)) - 2, y = static_cast<int>(L.isr_y(l, 1)) + 5;
            matching += img.at(x, y) == gui::vector_color(bar.vector);
        }
    INFO(matching << " of " << bars << " bars");
    REQUIRE(bars >= 3);
    CHECK(matching * 10 >= bars * 8);
    // a healthy capture has no finding markers (pure red appears nowhere else)
    int red = 0;
    for (int y = 0; y < img.h; ++y)
        for (int x = 0; x < img.w; ++x) red += img.at(x, y) == gui::kFindingColor;
    CHECK(red == 0);
}

TEST_CASE("a finding on a mutated capture shows as a red marker", "[gui]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    // report text of a real capture with one timer EOI removed (its kvm_eoi + kvm_pv_eoi)
    std::istringstream in(run("trace-cmd report -t '" + sample("pveoi-on.dat") + "'").out);
    std::string line, text;
    bool dropped = false;
    std::string pending;
    while (std::getline(in, line)) {
        if (!dropped && line.find("kvm_eoi:") != std::string::npos && line.find("vector 236") != std::string::npos &&
            line.find("20.0") != std::string::npos) {
            pending = line;
            continue;
        }
        if (!pending.empty()) {
            if (line.find("kvm_pv_eoi:") != std::string::npos) {
                dropped = true;
                pending.clear();
                continue;
            }
            text += pending + "\n";
            pending.clear();
        }
        text += line + "\n";
    }
    REQUIRE(dropped);
    auto path = scratch("mutant.txt");
    write_file(path, text);
    Image img = screenshot(path.string(), "19.8:21.1", 1200, 330);
    int red = 0;
    for (int y = 0; y < img.h; ++y)
        for (int x = 0; x < img.w; ++x) red += img.at(x, y) == gui::kFindingColor;
    CHECK(red > 20);
}

#include "inspector_model.hpp"

TEST_CASE("the inspector's state at a time equals a full replay up to that time", "[gui][inspector]") {
    Trace t = load_trace(sample("pveoi-on.dat"));
    const gui::StateIndex index(t, 20'000);  // several checkpoints
    REQUIRE(index.checkpoints() > 5);
    auto same = [](const std::vector<replay::VcpuState>& a, const std::vector<replay::VcpuState>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].irr != b[i].irr || a[i].isr != b[i].isr || a[i].tmr != b[i].tmr || a[i].tpr != b[i].tpr ||
                a[i].pv_eoi_enabled != b[i].pv_eoi_enabled || a[i].pv_eoi_armed != b[i].pv_eoi_armed || a[i].synced != b[i].synced)
                return false;
        return true;
    };
    int busy = 0;  // times at which some vCPU has something in IRR or ISR
    for (std::size_t k = 1; k <= 40; ++k) {
        const std::size_t idx = k * t.events.size() / 41;
        const std::int64_t ts = t.events[idx].ts.value();
        auto fast = index.at(ts);
        replay::Replayer slow(t);
        std::size_t upto = idx;
        while (upto < t.events.size() && t.events[upto].ts.value() <= ts) ++upto;
        slow.step_until(upto);
        INFO("at " << ts);
        CHECK(same(fast, slow.states()));
        for (const auto& s : fast) busy += !s.irr.empty() || !s.isr.empty();
    }
    CHECK(busy > 0);
    // and at the end it is what `check` computed
    CHECK(same(index.at(t.events.back().ts.value()), replay::replay(t).final_state));
}

TEST_CASE("the interactive window loads in the background and reports an unreadable trace by file and byte", "[gui]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    const std::string whole = read_file(sample("pveoi-on.dat"));
    auto cut = scratch("interactive-cut.dat");
    write_file(cut, whole.substr(0, 1000));
    // no --screenshot: the window opens at once and the loader thread hits the error
    auto r = run_gui("'" + cut.string() + "'", "", 120);
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(cut.string()) != std::string::npos);
    CHECK(r.out.find("byte 1000") != std::string::npos);
    // a text trace whose damage only the loader thread finds: line 5001 is binary
    std::istringstream in(run("trace-cmd report -t '" + sample("pveoi-on.dat") + "'").out);
    std::string line, text;
    for (int n = 1; std::getline(in, line) && n <= 20000; ++n) text += (n == 5001 ? std::string("\x01\x02garbage\xff") : line) + "\n";
    auto bad_text = scratch("interactive-bad.txt");
    write_file(bad_text, text);
    r = run_gui("'" + bad_text.string() + "'", "", 120);
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(bad_text.string()) != std::string::npos);
    CHECK(r.out.find("line 5001") != std::string::npos);
}

TEST_CASE("a session opened from the database draws the same pixels as its trace file", "[gui][storage]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    auto db = scratch("gui.db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + ext);
    REQUIRE(run(cli() + " import '" + sample("pveoi-on.dat") + "' --serial '" + sample("pveoi-on-serial.log") + "' --db '" + db.string() +
                "' --name on")
                .status == 0);
    const std::string view = "--range 19.8:20.4 --size 1400x420 --panels --tab statistics --inspect 20.0:1 ";
    Image from_trace = shoot(view + "--serial '" + sample("pveoi-on-serial.log") + "' '" + sample("pveoi-on.dat") + "'", "from-trace");
    Image from_db = shoot(view + "'" + db.string() + "'", "from-db");  // its only session
    REQUIRE(from_db.w == from_trace.w);
    REQUIRE(from_db.h == from_trace.h);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < from_db.px.size(); ++i) differ += from_db.px[i] != from_trace.px[i];
    CHECK(differ == 0);
    // with two sessions, the name picks one; without it the error lists them
    REQUIRE(run(cli() + " import '" + sample("xapic.dat") + "' --db '" + db.string() + "' --name x").status == 0);
    Image named = shoot(view + "'" + db.string() + "' on", "from-db-named");
    differ = 0;
    for (std::size_t i = 0; i < named.px.size(); ++i) differ += named.px[i] != from_trace.px[i];
    CHECK(differ == 0);
    auto r = run_gui("--screenshot /dev/null '" + db.string() + "'");
    CHECK(r.status == 2);
    CHECK(r.out.find("holds 2 sessions") != std::string::npos);
    CHECK(r.out.find("2  x") != std::string::npos);
    r = run_gui("--screenshot /dev/null '" + db.string() + "' nope");
    CHECK(r.status == 2);
    CHECK(r.out.find("no session \"nope\"") != std::string::npos);
}

TEST_CASE("the vCPU and vector filters draw only the chosen lanes and that vector's ISR bars", "[gui]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    const std::int64_t a = 20'550'000'000, b = 20'600'000'000;  // busy with 0xec and others on vCPUs 1 and 3
    Image img = shoot("--range 20.55:20.6 --size 1400x0 --vcpu 1,3 --vector 0xec '" + sample("pveoi-on.dat") + "'", "filtered");
    Trace t = load_trace(sample("pveoi-on.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    auto r = replay::replay(t, o);
    gui::Timeline tl = gui::build_timeline(t, r, nullptr);
    gui::Layout L{1400, static_cast<float>(img.h), a, b};
    // two lanes fit the window: 24 + 2 x 64 + 40 pixels high
    CHECK(img.h == static_cast<int>(gui::Layout::kTop + 2 * gui::Layout::kLaneHeight + 40));
    int shown = 0, shown_ok = 0, hidden = 0, hidden_ok = 0;
    for (int row = 0; row < 2; ++row) {
        const auto& lane = tl.lanes[static_cast<std::size_t>(row == 0 ? 1 : 3)];
        const int y = static_cast<int>(L.isr_y(row, 1)) + 5;
        for (const auto& bar : lane.isr) {
            if (bar.start < a || bar.end > b || bar.depth != 1 || L.x(bar.end) - L.x(bar.start) < 6) continue;
            const int x = static_cast<int>(L.x(bar.end)) - 2;  // clear of the vector label at the bar's start
            // a bar of the filtered vector may overlap
            bool overlaps_kept = false;
            for (const auto& other : lane.isr) overlaps_kept |= other.vector == 0xec && L.x(other.start) - 2 <= static_cast<float>(x) && L.x(other.end) + 2 >= static_cast<float>(x);
            if (bar.vector == 0xec) {
                ++shown;
                shown_ok += img.at(x, y) == gui::vector_color(0xec);
            } else if (!overlaps_kept) {
                ++hidden;
                hidden_ok += img.at(x, y) == gui::kBackground;
            }
        }
    }
    INFO(shown_ok << "/" << shown << " 0xec bars drawn, " << hidden_ok << "/" << hidden << " other bars absent");
    CHECK(shown >= 3);
    CHECK(hidden >= 3);
    CHECK(shown_ok * 10 >= shown * 8);
    CHECK(hidden_ok * 10 >= hidden * 8);
    // values this trace cannot have are usage errors, as in the CLI
    auto bad = run_gui("--screenshot /dev/null --vcpu 9 '" + sample("pveoi-on.dat") + "'");
    CHECK(bad.status == 64);
    CHECK(bad.out.find("no vCPU 9") != std::string::npos);
    bad = run_gui("--screenshot /dev/null --goto '#999999999' '" + sample("pveoi-on.dat") + "'");
    CHECK(bad.status == 64);
    CHECK(bad.out.find("no such time or record") != std::string::npos);
}

#include "navigation_model.hpp"


TEST_CASE("mouse and keys drive the real window: wheel, box zoom, Home, End, whole, drag, jump, click to inspect", "[gui][input]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    // xdotool sends X events to the window as a user would; each step waits for the
    // frames to pass, and the window prints its view whenever it changes
    const Driven d = drive_window("input", "'" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
step start
xdotool $(at 700 100) click 4 sleep 0.15 click 4 sleep 0.15 click 4; step wheel
xdotool $(at 300 100) mousedown 3 $(at 400 100) $(at 500 100) mouseup 3; step box
key Home; step home
key End; step end
key w; step whole
xdotool $(at 700 60) mousedown 1 $(at 750 60) $(at 800 60) mouseup 1; step drag
key i; step injection
xdotool $(at 600 110) click 1; step click
)sh");
    const std::string& out = d.log;
    INFO(d.out << out);
    // the view after each step, and where the inspector was pinned
    std::map<std::string, gui::ViewRange> view;
    gui::ViewRange current{-1, -1};
    int lane = -1;
    long long pinned_ts = -1;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        long long a = 0, b = 0;
        int l = 0;
        if (std::sscanf(line.c_str(), "view %lld %lld", &a, &b) == 2) current = {a, b};
        else if (std::sscanf(line.c_str(), "inspect %d %lld", &l, &a) == 2) lane = l, pinned_ts = a;
        else if (line.rfind("# ", 0) == 0) view[line.substr(2)] = current;
    }
    REQUIRE(view.count("exit 0"));
    Trace t = load_trace(sample("pveoi-on.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    auto rr = replay::replay(t, o);
    const gui::Timeline tl = gui::build_timeline(t, rr, nullptr);
    const double px = 1400 - gui::Layout::kGutter;
    auto frac = [&](double x) { return (x - gui::Layout::kGutter) / px; };
    auto apart = [](std::int64_t a, std::int64_t b) { return static_cast<double>(std::llabs(a - b)); };
    const auto& start = view["start"];
    CHECK(start.t0 == tl.t0);
    CHECK(start.t1 == tl.t1);
    // three wheel notches: 0.8^3 of the span, the time under the cursor stays put
    const auto& wheel = view["wheel"];
    CHECK(wheel.span() == Approx(start.span() * 0.512).epsilon(0.001));
    CHECK(apart(wheel.at(frac(700)), start.at(frac(700))) < start.span() / px);
    // a right-drag box from x 300 to 500 becomes the view
    const auto& box = view["box"];
    CHECK(apart(box.t0, wheel.at(frac(300))) <= wheel.span() / px);
    CHECK(apart(box.t1, wheel.at(frac(500))) <= wheel.span() / px);
    // Home and End keep the zoom and go to the trace's first and last event; W shows it all
    CHECK(view["home"].t0 == tl.t0);
    CHECK(view["home"].span() == Approx(box.span()).epsilon(1e-9));
    CHECK(view["end"].t1 == tl.t1);
    CHECK(view["end"].span() == Approx(box.span()).epsilon(1e-9));
    CHECK(view["whole"].t0 == tl.t0);
    CHECK(view["whole"].t1 == tl.t1);
    // dragging 100 px to the right moves the view 100 px earlier
    const auto& drag = view["drag"];
    CHECK(drag.span() == Approx(start.span()).epsilon(1e-6));
    CHECK(static_cast<double>(start.t0 - drag.t0) == Approx(start.span() * 100 / px).epsilon(0.03));
    // I centres the next injection after the centre
    const auto& inj = view["injection"];
    const auto expect = gui::find_next(tl, gui::Filter::all(tl), gui::JumpTarget::Injection, drag.t0 + (drag.t1 - drag.t0) / 2, true);
    REQUIRE(expect);
    CHECK(inj.t0 + (inj.t1 - inj.t0) / 2 == *expect);
    // a click on the second lane pins the inspector there, at the time under the mouse
    CHECK(lane == 1);
    CHECK(apart(pinned_ts, inj.at(frac(600))) <= inj.span() / px);
}

TEST_CASE("a database with several sessions opens on a picker and the clicked session loads", "[gui][input][storage]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    auto db = scratch("picker.db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + ext);
    for (const char* s : {"pveoi-on.dat", "pveoi-off.dat"}) REQUIRE(run(cli() + " import '" + sample(s) + "' --db '" + db.string() + "'").status == 0);
    // the window prints each row's rectangle; xdotool clicks the second one
    const Driven d = drive_window("picker", "'" + db.string() + "'", R"sh(
window "^irqflow \(loading\)"
line "^pick 2"
read -r _ _ x0 y0 x1 y1 < <(grep "^pick 2" "$log")
xdotool mousemove --window "$wid" $(( (x0 + x1) / 2 )) $(( (y0 + y1) / 2 )) sleep 0.3 click 1
window "^irqflow - "
sleep 0.5
)sh");
    const std::string& out = d.log;
    INFO(d.out << out);
    CHECK(out.find("pick 1 ") != std::string::npos);
    CHECK(out.find("# exit 0") != std::string::npos);
    // the view opens on the whole of the second session: pveoi-off's first to last event
    Trace off = load_trace(sample("pveoi-off.dat"));
    CHECK(out.find("view " + std::to_string(off.events.front().ts.value()) + " " + std::to_string(off.events.back().ts.value())) !=
          std::string::npos);
}

TEST_CASE("clicking an ISR bit in the real window names the accept, injection and EOI behind it", "[gui][input][inspector]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    // vCPU 2 at 20.2865 s is inside a level-triggered virtio interrupt, vector 0x22
    const Driven d = drive_window("isr", "--inspect 20.2865:2 '" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
line "^isr-grid"
read -r _ gx gy cw ch < <(grep "^isr-grid" "$log")
v=34
xdotool mousemove --window "$wid" $(( gx + (v % 16) * cw + cw / 2 )) $(( gy + (v / 16) * ch + ch / 2 )) sleep 0.3 click 1
sleep 0.5
)sh");
    const std::string& out = d.log;
    INFO(d.out << out);
    CHECK(out.find("# exit 0") != std::string::npos);
    Trace t = load_trace(sample("pveoi-on.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto rr = replay::replay(t, o);
    const replay::InterruptRecord* expect = nullptr;
    for (const auto& ir : rr.interrupts)
        if (ir.vcpu.value() == 2 && ir.vector == 0x22 && ir.inject_ts <= 20'286'500'000 && ir.eoi_ts >= 20'286'500'000) expect = &ir;
    REQUIRE(expect);
    CHECK(expect->level);
    char line[160];
    std::snprintf(line, sizeof line, "isr-pin 34 accept %llu inject %llu eoi %llu", static_cast<unsigned long long>(expect->accept_record),
                  static_cast<unsigned long long>(expect->inject_record), static_cast<unsigned long long>(expect->eoi_record));
    CHECK(out.find(line) != std::string::npos);
}

TEST_CASE("while a trace loads, the window shows its overview: every vCPU thread's states and exits over the whole trace", "[gui][overview]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    const Image img = shoot("--size 1400x330 '" + sample("pveoi-on.dat") + "'", "overview", "--screenshot-overview");
    const gui::Layout L{1400, 330, 0, 1};
    for (int l = 0; l < 4; ++l) {  // pveoi-on.dat: 4 vCPU threads from start to end; 1-3 halted for the first half
        INFO("lane " << l);
        int banded = 0, ticked = 0;
        for (int x = static_cast<int>(gui::Layout::kGutter); x < img.w; ++x) {
            const auto c = img.at(x, static_cast<int>(L.band_y(l)) + 5);
            banded += c == gui::state_color(gui::VcpuState::Guest) || c == gui::state_color(gui::VcpuState::Host) ||
                      c == gui::state_color(gui::VcpuState::Halted);
            const auto t = img.at(x, static_cast<int>(L.tick_y(l)) + 4);
            ticked += std::find(std::begin(gui::kExitDensity), std::end(gui::kExitDensity), t) != std::end(gui::kExitDensity);
        }
        CHECK(banded > (img.w - 90) * 9 / 10);
        CHECK(ticked > (img.w - 90) / 4);
    }
    // a stored session shows the same overview while it is read from the database
    auto db = scratch("overview.db");
    std::filesystem::remove(db);
    REQUIRE(run(cli() + " import --db '" + db.string() + "' '" + sample("xapic.dat") + "'").status == 0);
    const Image from_file = shoot("--size 1400x330 '" + sample("xapic.dat") + "'", "overview-file", "--screenshot-overview");
    const Image from_db = shoot("--size 1400x330 '" + db.string() + "'", "overview-db", "--screenshot-overview");
    REQUIRE(from_db.w == from_file.w);
    REQUIRE(from_db.h == from_file.h);
    std::size_t differ = 0, lit = 0;
    for (int y = static_cast<int>(gui::Layout::kTop); y < from_db.h; ++y)  // the lanes (the status line above names the stage)
        for (int x = 0; x < from_db.w; ++x) {
            differ += from_db.at(x, y) != from_file.at(x, y);
            lit += from_db.at(x, y) != gui::kBackground;
        }
    CHECK(differ == 0);
    CHECK(lit > 1400 * 20);  // not two empty pictures
}

TEST_CASE("the axis is in trace time, as every other view and option, and --relative-time counts from the start", "[gui][axis]") {
    if (!have_xvfb()) return;
    const auto shot = scratch("axis-default.png").string();
    auto axis_line = [&](const std::string& options) {
        const auto r = run_gui("--screenshot '" + shot + "' --print-view " + options + " '" + sample("pveoi-on.dat") + "'");
        REQUIRE(r.status == 0);
        const auto at = r.out.find("\naxis ");
        REQUIRE(at != std::string::npos);
        return r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
    };
    // the trace runs 12.09 s .. 21.1 s on the clock: its seconds, as events and the inspector print them
    const std::string clock = axis_line("");
    INFO(clock);
    CHECK(clock.rfind("axis clock time | ", 0) == 0);
    CHECK(clock.find(" 13 s 14 s 15 s") != std::string::npos);
    CHECK(axis_line("--absolute-time") == clock);
    const std::string relative = axis_line("--relative-time");
    CHECK(relative.rfind("axis from start | 0 s 1 s 2 s", 0) == 0);
    // what the axis shows is what --range takes, either way
    CHECK(run_gui("--screenshot '" + shot + "' --range 14:14.2 '" + sample("pveoi-on.dat") + "'").status == 0);
    CHECK(run_gui("--screenshot '" + shot + "' --range +2s:+2.2s '" + sample("pveoi-on.dat") + "'").status == 0);
    CHECK(run_gui("--screenshot '" + shot + "' --relative-time --absolute-time '" + sample("pveoi-on.dat") + "'").status == 64);
}

TEST_CASE("the time axis labels change unit as the window zooms in, and T switches between time from the start and the trace clock", "[gui][input][axis]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const Driven d = drive_window("axis", "--relative-time '" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
step start
for i in 1 2 3 4 5; do key equal; done; step ms
for i in 1 2 3 4 5 6 7 8; do key equal; done; step us
key t; step absolute
key F1; step keys
key F1; xdotool $(at 700 150) click 1; step pinned
)sh");
    INFO(d.out << d.log);
    std::map<std::string, std::string> axis;  // the axis line after each step
    std::map<std::string, std::string> bits;
    std::string current, current_bits;
    std::istringstream in(d.log);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("axis ", 0) == 0) current = line;
        else if (line.rfind("bits ", 0) == 0) current_bits = line;
        else if (line.rfind("# ", 0) == 0) axis[line.substr(2)] = current, bits[line.substr(2)] = current_bits;
    }
    REQUIRE(axis.count("exit 0"));
    // whole trace (~9 s): whole seconds from the start
    CHECK(axis["start"].rfind("axis from start | 0 s 1 s 2 s", 0) == 0);
    auto labels = [&](const std::string& step) { return axis[step].substr(axis[step].find('|')); };
    // 2^5 closer: steps of milliseconds, counted from a round second after the start
    CHECK(labels("ms").find(" ms") != std::string::npos);
    CHECK(labels("ms").find(" s ") == std::string::npos);
    CHECK(axis["ms"].rfind("axis +", 0) == 0);
    // 2^13 closer (~1 ms across): microseconds, from a round millisecond after the start
    CHECK(labels("us").find(" µs") != std::string::npos);
    CHECK(labels("us").find(" ms") == std::string::npos);
    // T: the same zoom counted on the trace clock: the base moves by the trace's start
    double relative = 0, absolute = 0;
    REQUIRE(std::sscanf(axis["us"].c_str(), "axis +%lf s", &relative) == 1);
    REQUIRE(std::sscanf(axis["absolute"].c_str(), "axis %lf s", &absolute) == 1);
    CHECK(labels("absolute").find(" µs") != std::string::npos);
    Trace t = load_trace(sample("pveoi-on.dat"));
    const double start = static_cast<double>(t.events.ts(0).value()) / 1e9;
    CHECK(std::abs(absolute - relative - start) < 0.0011);  // each base is a round millisecond of its own zero
    // a click pins the inspector and lists the lane's set bits as text
    CHECK(bits["pinned"].rfind("bits 1 isr ", 0) == 0);
}

TEST_CASE("every GUI option is checked against the trace: a range outside it, a lane it lacks, an unknown tab", "[gui][usage]") {
    if (!have_xvfb()) return;
    const std::string trace = " '" + sample("pveoi-on.dat") + "'";
    auto r = run_gui("--screenshot /dev/null --range 1:2" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("--range 1:2: outside the trace (") != std::string::npos);
    CHECK(r.out.find("pveoi-on.dat spans 12.088411 s .. 21.153422 s)") != std::string::npos);
    // what the axis's relative row shows is accepted too: +TIME from the trace's start
    CHECK(run_gui("--screenshot /dev/null --range +4.5s:+4.7s" + trace).status == 0);
    CHECK(run_gui("--screenshot /dev/null --goto +4.5s" + trace).status == 0);
    r = run_gui("--screenshot /dev/null --range +40s:+41s" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("--range +40s:+41s: outside the trace (") != std::string::npos);
    r = run_gui("--screenshot /dev/null --inspect 13.2:7" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("no lane 7; lanes are 0..3") != std::string::npos);
    r = run_gui("--screenshot /dev/null --inspect 99:1" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("99 s is outside the trace") != std::string::npos);
    r = run_gui("--screenshot /dev/null --tab foo" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("foo") != std::string::npos);
    r = run_gui("--screenshot /dev/null --marks 13:99" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("--marks: 99 s is outside the trace") != std::string::npos);
    r = run_gui("--screenshot /dev/null --search 'kvm_exit nosuch=1'" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("--search kvm_exit nosuch=1: no event has a field 'nosuch'") != std::string::npos);
    r = run_gui("--screenshot /dev/null" + trace + " --compare" + trace + trace);  // a trace and two to compare
    CHECK(r.status == 64);
    CHECK(r.out.find("excludes") != std::string::npos);
    r = run_gui("--screenshot /dev/null --compare" + trace);
    CHECK(r.status == 64);
    r = run_gui("--screenshot /dev/null --compare" + trace + " '" + sample("nosuch.dat") + "'");
    CHECK(r.status == 2);
    CHECK(r.out.find("nosuch.dat") != std::string::npos);
    r = run_gui("--screenshot /dev/null --goto 99s" + trace);
    CHECK(r.status == 64);
    CHECK(r.out.find("--goto 99s: no such time or record") != std::string::npos);
}

TEST_CASE("hovering a known exit in the real window shows its reason in a tooltip", "[gui][input][hover]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    // record 104904, an NPF exit of vCPU 2 at 20.280040937 s; a VINTR exit 59 µs earlier
    // is 0.4 px left of it, so the pointer goes a pixel to the right: the nearest wins
    const gui::Layout L{1400, 352, 20'200'000'000, 20'400'000'000};
    const int x = static_cast<int>(std::lround(L.x(20'280'040'937))), y = static_cast<int>(L.tick_y(2)) + 4;
    const Driven d = drive_window("hover", "--range 20.2:20.4 '" + sample("pveoi-on.dat") + "'",
                                  "window \"^irqflow - \"\nstep start\nxdotool $(at " + std::to_string(x + 1) + " " + std::to_string(y) +
                                      ") ; step hovered\nxdotool $(at 40 " + std::to_string(y) + "); step gutter\n");
    INFO(d.out << d.log);
    std::string hovered, last;
    std::istringstream in(d.log);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("hover ", 0) == 0) last = line.substr(6);
        if (line == "# hovered") hovered = last;
    }
    CHECK(hovered.rfind("vm0/vcpu2 exit EXIT_NPF at 20.280040937 s", 0) == 0);
}

TEST_CASE("the lost gap of lost.dat is drawn hatched on every lane it un-syncs", "[gui][lost]") {
    if (!have_xvfb()) return;
    // CPU 1 dropped 276 events between 88.7513 s and the marker at 88.7567 s
    const Image img = shoot("--range 88.70:88.80 --size 1400x352 '" + sample("lost.dat") + "'", "lost");
    const gui::Layout L{1400, 352, 88'700'000'000, 88'800'000'000};
    const int x0 = static_cast<int>(L.x(88'751'400'000)), x1 = static_cast<int>(L.x(88'756'600'000));
    for (int lane = 0; lane < 4; ++lane) {
        int red = 0, outside = 0;
        for (int y = static_cast<int>(L.lane_top(lane)); y < static_cast<int>(L.lane_top(lane) + gui::Layout::kLaneHeight - 4); ++y) {
            for (int x = x0; x <= x1; ++x) red += img.at(x, y) == gui::kLostColor;
            for (int x = 200; x < 300; ++x) outside += img.at(x, y) == gui::kLostColor;
        }
        INFO("lane " << lane);
        CHECK(red >= 100);
        CHECK(outside == 0);
    }
}


TEST_CASE("going to a record (the --goto option, Ctrl+G) zooms there, pins the cursor and selects its row on screen", "[gui][input][goto]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    Trace t = load_trace(sample("pveoi-on.dat"));
    const Event later = t.events[t.events.size() * 3 / 4];
    const Driven d = drive_window("goto", "--goto '#104904' '" + sample("pveoi-on.dat") + "'",
                                  "window \"^irqflow - \"\nstep start\nkey ctrl+g; xdotool type '#" + std::to_string(later.record) +
                                      "'; key Return; step typed\n");
    INFO(d.out << d.log);
    const LogLines L = log_lines(d.log);
    const std::int64_t first_ts = *gui::record_time(t, 104904);
    // the view: 200 µs around the record, the inspector pinned on its vCPU (2) at its time
    CHECK(L.all("view", "start").back() ==
          "view " + std::to_string(first_ts - gui::kGoToSpanNs / 2) + " " + std::to_string(first_ts + gui::kGoToSpanNs / 2));
    CHECK(L.all("inspect", "start").back() == "inspect 2 " + std::to_string(first_ts));
    CHECK(L.all("selected", "start").back() == "selected 104904 visible");
    // Ctrl+G and a record typed: the same for it
    CHECK(L.all("inspect", "typed").back().ends_with(" " + std::to_string(later.ts.value())));
    CHECK(L.all("selected", "typed").back() == "selected " + std::to_string(later.record) + " visible");
    const auto view = L.all("view", "typed").back();
    long long a = 0, b = 0;
    REQUIRE(std::sscanf(view.c_str(), "view %lld %lld", &a, &b) == 2);
    CHECK(b - a == gui::kGoToSpanNs);
    CHECK(a + (b - a) / 2 == later.ts.value());
}

TEST_CASE("markers A and B by Ctrl+click: the delta equals the times clicked, the selection tab counts what lies between", "[gui][input][selection]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const Driven d = drive_window("marks", "--range 20.2:20.4 '" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
step start
xdotool $(at 400 100) keydown ctrl click 1 keyup ctrl; step a
xdotool $(at 900 100) keydown ctrl click 3 keyup ctrl; step b
)sh");
    INFO(d.out << d.log);
    const LogLines L = log_lines(d.log);
    const gui::Layout at{1400, 352, 20'200'000'000, 20'400'000'000};
    long long a = -1, b = -1, t0 = 0, t1 = 0;
    unsigned long long exits = 0, injections = 0;
    REQUIRE(!L.all("marks", "b").empty());
    REQUIRE(std::sscanf(L.all("marks", "b").back().c_str(), "marks %lld %lld", &a, &b) == 2);
    const double ns_per_px = 200e6 / (1400 - gui::Layout::kGutter);
    CHECK(std::abs(static_cast<double>(a - at.time_at(400))) <= ns_per_px);
    CHECK(std::abs(static_cast<double>(b - at.time_at(900))) <= ns_per_px);
    // the selection tab opened by itself, on what lies between them
    REQUIRE(!L.all("selection", "b").empty());
    REQUIRE(std::sscanf(L.all("selection", "b").back().c_str(), "selection %lld %lld exits %llu injections %llu", &t0, &t1, &exits, &injections) == 4);
    CHECK(t0 == a);
    CHECK(t1 == b);
    gui::LoadProgress progress;
    gui::SessionSource src;
    src.path = sample("pveoi-on.dat");
    const auto s = gui::load_session(src, progress);
    const auto r = gui::range_stats(*s, gui::LaneLookup(s->tl), gui::Filter::all(s->tl), a, b);
    CHECK(exits == r.exits);
    CHECK(injections == r.injections);
    CHECK(exits > 0);
}

TEST_CASE("search from the window: Ctrl+F, a query, Enter, then F3 and Shift+F3 step through the matches", "[gui][input][search]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const Driven d = drive_window("search", "'" + sample("pveoi-on.dat") + "'", R"sh(
window "^irqflow - "
key Home; step start
key ctrl+f; xdotool type 'kvm_exit exit_reason=HLT'; key Return; step searched
key F3; step next
key shift+F3; step back
)sh");
    INFO(d.out << d.log);
    const LogLines L = log_lines(d.log);
    gui::LoadProgress progress;
    gui::SessionSource src;
    src.path = sample("pveoi-on.dat");
    const auto s = gui::load_session(src, progress);
    std::string error;
    const auto terms = gui::parse_search(*s, "kvm_exit exit_reason=HLT", error);
    REQUIRE(terms);
    const auto hits = gui::search_events(*s, *terms);
    REQUIRE(hits.size() > 2);
    CHECK(L.all("search", "searched").back() == "search kvm_exit exit_reason=HLT: " + std::to_string(hits.size()) + " matches");
    // Enter went to the first match after the view's centre (the whole trace's), F3 to the next, Shift+F3 back
    const auto& ev = s->trace.events;
    const auto first = gui::step_match(s->trace, hits, std::nullopt, s->tl.t0 + (s->tl.t1 - s->tl.t0) / 2, true);
    REQUIRE(first);
    auto match = [&](std::size_t k) { return "match " + std::to_string(k) + " record " + std::to_string(ev.record(hits[k])); };
    CHECK(L.all("match", "searched").back() == match(*first));
    CHECK(L.all("match", "next").back() == match(*first + 1));
    CHECK(L.all("match", "back").back() == match(*first));
    CHECK(L.all("selected", "next").back() == "selected " + std::to_string(ev.record(hits[*first + 1])) + " visible");
}

TEST_CASE("an IPI line ends in an arrowhead with its vector, and lanes grow to fill a taller window", "[gui][ipi]") {
    if (!have_xvfb()) return;
    const std::int64_t a = 20'280'000'000, b = 20'280'500'000;
    const Image img = shoot("--range 20.28:20.2805 --size 1400x352 '" + sample("pveoi-on.dat") + "'", "ipi");
    Trace t = load_trace(sample("pveoi-on.dat"));
    replay::ReplayOptions o;
    o.collect_details = true;
    const gui::Timeline tl = gui::build_timeline(t, replay::replay(t, o), nullptr);
    const gui::Layout L{1400, 352, a, b};
    std::size_t checked = 0;
    for (const auto& arrow : tl.arrows) {
        if (arrow.ts < a || arrow.ts > b) continue;
        const float x = L.x(arrow.ts), dir = arrow.to_lane > arrow.from_lane ? 1.0f : -1.0f;
        const float tip = L.band_y(arrow.to_lane) + 5 - dir * 2;
        const std::uint32_t colour = (arrow.pv ? gui::kPvIpiColor : gui::kIcrIpiColor) | 0xff000000u;
        INFO("IPI at " << arrow.ts << " to lane " << arrow.to_lane);
        CHECK(img.at(static_cast<int>(std::lround(x + 2)), static_cast<int>(std::lround(tip - dir * 5))) == colour);  // inside the head
        int label = 0;  // the vector's text beside it
        for (int y = static_cast<int>(tip - dir * 7) - 16; y < static_cast<int>(tip - dir * 7) + 4; ++y)
            for (int px = static_cast<int>(x) + 7; px < static_cast<int>(x) + 37; ++px) label += img.at(px, y) == colour;
        CHECK(label > 8);
        ++checked;
    }
    CHECK(checked >= 2);
    // twice the height: each lane's band twice as tall, all of it drawn
    const Image tall = shoot("--range 20.28:20.2805 --size 1400x700 '" + sample("pveoi-on.dat") + "'", "ipi-tall");
    const gui::Layout T{1400, 700, a, b, gui::Layout::fit_lane_height(700, 4)};
    CHECK(T.lane_height > 150);
    for (int lane = 0; lane < 4; ++lane) {
        INFO("lane " << lane);
        const int y0 = static_cast<int>(std::ceil(T.band_y(lane))), y1 = static_cast<int>(T.band_y(lane) + T.band_height()) - 1;
        CHECK(y1 - y0 >= 18);
        for (int y = y0; y <= y1; ++y) CHECK(tall.at(95, y) == tall.at(95, y0));
        CHECK(tall.at(95, y0) != gui::kBackground);
    }
}

TEST_CASE("lost.dat's unsynced stretches are shaded under every lane after the drop, and nowhere before it", "[gui][unsynced]") {
    if (!have_xvfb()) return;
    const Image img = shoot("--range 88.70:88.80 --size 1400x352 '" + sample("lost.dat") + "'", "unsynced");
    const gui::Layout L{1400, 352, 88'700'000'000, 88'800'000'000};
    const int after0 = static_cast<int>(L.x(88'757'500'000)), after1 = 1390;
    for (int lane = 0; lane < 4; ++lane) {
        INFO("lane " << lane);
        const int y = static_cast<int>(L.unsynced_y(lane));
        int after = 0, before = 0;
        for (int x = after0; x < after1; ++x) after += img.at(x, y) == gui::kUnsyncedColor;
        for (int x = 100; x < 700; ++x) before += img.at(x, y) == gui::kUnsyncedColor;
        CHECK(after == after1 - after0);
        CHECK(before == 0);
    }
}

TEST_CASE("the compare view: two runs one above the other, locked, and a diff row click aligns both at an example of it", "[gui][input][compare]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const std::string a = sample("pveoi-off.dat"), b = sample("pveoi-on.dat");
    // the window prints each diff row's rectangle; the test clicks the HLT row's
    const std::string key = "exits_per_guest_s[EXIT_HLT]";
    const Driven d = drive_window("compare", "--compare '" + a + "' '" + b + "'",
                                  "window \"^irqflow - \"\nline \"^row exits_per_guest_s\\[EXIT_HLT\\] \"\nstep start\n"
                                  "xy=$(grep -m1 '^row exits_per_guest_s\\[EXIT_HLT\\] ' \"$log\" | awk '{print int(($3+$5)/2), int(($4+$6)/2)}')\n"
                                  "xdotool $(at $xy) click 1; step clicked\n"
                                  "xdotool $(at 700 100) click 4; step wheel\n",
                                  "1400x1100");  // both runs' lanes and the diff table
    INFO(d.out << d.log);
    const LogLines L = log_lines(d.log);
    const Trace ta = load_trace(a), tb = load_trace(b);
    // at first aligned at the starts
    REQUIRE(!L.all("view", "start").empty());
    long long t0 = 0, t1 = 0, shift = 0;
    REQUIRE(std::sscanf(L.all("view", "start").back().c_str(), "view %lld %lld shift %lld", &t0, &t1, &shift) == 3);
    CHECK(shift == tb.events.ts(0).value() - ta.events.ts(0).value());
    // the click: an HLT exit in each run, A's centred, B's under it
    REQUIRE(!L.all("align", "clicked").empty());
    long long ea = 0, eb = 0;
    char k[64] = {};
    REQUIRE(std::sscanf(L.all("align", "clicked").back().c_str(), "align %63s %lld %lld", k, &ea, &eb) == 3);
    CHECK(std::string(k) == key);
    auto is_hlt_exit = [](const Trace& t, long long ts) {
        for (std::size_t i = t.events.lower_bound_ts(TimestampNs(ts)); i < t.events.size() && t.events.ts(i).value() == ts; ++i)
            if (t.events.kind(i) == EventKind::Exit && exit_reason_key(t.events[i]) == "EXIT_HLT") return true;
        return false;
    };
    CHECK(is_hlt_exit(ta, ea));
    CHECK(is_hlt_exit(tb, eb));
    REQUIRE(std::sscanf(L.all("view", "clicked").back().c_str(), "view %lld %lld shift %lld", &t0, &t1, &shift) == 3);
    CHECK(shift == eb - ea);
    CHECK(t0 + (t1 - t0) / 2 == ea);
    // the wheel zooms both: one view, the same shift
    long long w0 = 0, w1 = 0, wshift = 0;
    REQUIRE(std::sscanf(L.all("view", "wheel").back().c_str(), "view %lld %lld shift %lld", &w0, &w1, &wshift) == 3);
    CHECK(static_cast<double>(w1 - w0) == Approx(0.8 * static_cast<double>(t1 - t0)).epsilon(0.01));
    CHECK(wshift == shift);
}

TEST_CASE("a compare screenshot draws A's lanes above B's with the diff table, significant rows highlighted", "[gui][compare]") {
    if (!have_xvfb()) return;
    const Image img = shoot("--panels --compare '" + sample("pveoi-off.dat") + "' '" + sample("pveoi-on.dat") + "'", "compare");
    const float ha = gui::Layout::fitted_height(4), hb = gui::Layout::fitted_height(4);
    CHECK(img.h == static_cast<int>(ha + hb + 340));
    // both runs' bands: a state colour in each lane's band row, A's then B's
    const std::set<std::uint32_t> states = {gui::state_color(gui::VcpuState::Guest), gui::state_color(gui::VcpuState::Host),
                                            gui::state_color(gui::VcpuState::Halted)};
    const gui::Layout L{1400, ha, 0, 1};
    for (int lane = 0; lane < 4; ++lane) {
        INFO("lane " << lane);
        std::size_t a = 0, b = 0;
        for (int x = 600; x < 1400; ++x) {
            a += states.count(img.at(x, static_cast<int>(L.band_y(lane)) + 4));
            b += states.count(img.at(x, static_cast<int>(ha + L.band_y(lane)) + 4));
        }
        CHECK(a > 400);
        CHECK(b > 400);
    }
    // the highlighted rows (significant) are drawn in amber text somewhere in the table
    int amber = 0;
    for (int y = static_cast<int>(ha + hb); y < img.h; ++y)
        for (int x = 0; x < 400; ++x) amber += img.at(x, y) == 0xff4dccffu;
    CHECK(amber > 20);
}

TEST_CASE("the compare view lines the runs up at a chosen event or time in each with --align, and refuses one a run lacks", "[gui][compare]") {
    if (!have_xvfb()) return;
    const std::string a = sample("pveoi-off.dat"), b = sample("pveoi-on.dat");
    const auto out = scratch("align.png").string();
    auto r = run_gui("--screenshot '" + out + "' --print-view --compare '" + a + "' '" + b + "' --align '#1000' 20.3",
                     "-s '-screen 0 1600x1200x24'");
    INFO(r.out);
    REQUIRE(r.status == 0);
    long long t0 = 0, t1 = 0, shift = 0;
    const auto at = r.out.find("view ");
    REQUIRE(at != std::string::npos);
    REQUIRE(std::sscanf(r.out.c_str() + at, "view %lld %lld shift %lld", &t0, &t1, &shift) == 3);
    const Trace ta = load_trace(a);
    std::int64_t ts1000 = -1;
    for (std::size_t i = 0; i < ta.events.size(); ++i)
        if (ta.events.record(i) == 1000) ts1000 = ta.events.ts(i).value();
    REQUIRE(ts1000 > 0);
    CHECK(shift == 20'300'000'000LL - ts1000);  // B's 20.3 s under A's record 1000
    r = run_gui("--screenshot '" + out + "' --compare '" + a + "' '" + b + "' --align '#1000' 99", "");
    CHECK(r.status == 64);
    CHECK(r.out.find("no time or record 99 in") != std::string::npos);
}

// The findings tab shows each root's diagnosis sentence; a click on it selects its
// window: markers A and B on the records it names, the view around them.
TEST_CASE("a click on a finding's diagnosis selects its window on the timeline", "[gui][input][diagnosis]") {
    if (!have_xvfb() || !have_xdotool()) {
        WARN("xvfb-run or xdotool not installed: input test skipped");
        return;
    }
    const std::string cases = IRQFLOW_CASES;
    const std::string trace = cases + "/ISR-ORDER-fires-below-in-service.txt";
    const Driven d = drive_window("diagnosis", "'" + trace + "' --panels --tab findings", R"sh(
window "^irqflow - "
line "^diagnosis 0 "
read -r _ _ x0 y0 x1 y1 < <(grep "^diagnosis 0 " "$log")
xdotool mousemove --window "$wid" $(( (x0 + x1) / 2 )) $(( (y0 + y1) / 2 )) sleep 0.3 click 1
step clicked
)sh");
    INFO(d.out << d.log);
    CHECK(d.log.find("# exit 0") != std::string::npos);
    // the replay's own diagnosis: the missing EOI of 0x61 between its injection (record 5)
    // and the injection it blocked (record 9)
    const Trace t = load_trace(trace);
    const auto r = replay::replay(t);
    REQUIRE(r.findings.size() == 1);
    REQUIRE(r.findings[0].diagnosis);
    const auto& x = r.findings[0].diagnosis->top;
    CHECK(x.from == 5);
    CHECK(x.to == 9);
    const std::string marks = "marks " + std::to_string(x.from_ts.value()) + " " + std::to_string(x.to_ts.value());
    const auto at = d.log.find(marks);
    CHECK(at != std::string::npos);
    // and the view moved onto the window, with its margins
    const auto w = gui::diagnosis_window(x);
    CHECK(d.log.find("view " + std::to_string(w.t0) + " " + std::to_string(w.t1), at == std::string::npos ? 0 : at) != std::string::npos);
    CHECK(w.t0 < x.from_ts.value());
    CHECK(w.t1 > x.to_ts.value());
}

TEST_CASE("with --guest each vCPU lane shows the guest's handlers under the ISR bars, and a line from each injection to its handler", "[gui][guest]") {
    if (!have_xvfb()) {
        WARN("xvfb-run not installed: GUI test skipped");
        return;
    }
    // 1.4 ms at 59.94 s: vCPU 3 sends call-function IPIs (0xfc) to vCPUs 0-2 twice, each
    // runs its call_function handler tens of µs after the injection; vCPU 3's timer ticks
    const std::int64_t a = 59'940'400'000, b = 59'941'800'000;
    const int w = 1400, h = static_cast<int>(gui::Layout::fitted_height(4, true));
    Image img = shoot("--range 59.9404:59.9418 --size " + std::to_string(w) + "x" + std::to_string(h) + " --guest '" + sample("hostguest-guest.dat") +
                          "' '" + sample("hostguest.dat") + "'",
                      "guest");
    REQUIRE(img.w == w);
    REQUIRE(img.h == h);

    LoadOptions load;
    load.other_event_info = true;
    Trace t = load_trace(sample("hostguest.dat"), load);
    GuestTrace guest = load_guest_trace(sample("hostguest-guest.dat"));
    const GuestClock clock = align_guest_clock(t, guest);
    REQUIRE(clock.method == GuestClock::Method::Tsc);
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(t, o);
    gui::Timeline tl = gui::build_timeline(t, r, nullptr);
    gui::add_guest_spans(tl, guest, clock.vm);
    REQUIRE(tl.has_guest());
    const gui::Layout L{static_cast<float>(w), static_cast<float>(h), a, b, gui::Layout::fit_lane_height(static_cast<float>(h), 4, true), true};
    REQUIRE(tl.lanes.size() == 4);

    // every span at least 6 px wide shows its vector's colour inside its guest row
    int spans = 0, matching = 0, arrows = 0, drawn = 0;
    bool timer_on_3 = false;
    for (int l = 0; l < 4; ++l)
        for (const auto& s : tl.lanes[static_cast<std::size_t>(l)].guest) {
            if (l == 3 && s.vector == 0xec && s.start > a && s.start < b && tl.guest_names[s.name] == "local_timer") timer_on_3 = true;
            if (s.start < a || s.end > b || L.x(s.end) - L.x(s.start) < 6) continue;
            ++spans;
            const int y = static_cast<int>(L.guest_y(l) + L.guest_height() - 2);
            matching += img.at(static_cast<int>(L.x(s.end)) - 3, y) == gui::vector_color(s.vector);
            // the injection's line: white pixels on the way from the marker to the entry
            if (s.inject_ts < a) continue;
            ++arrows;
            const float x0 = L.x(s.inject_ts), y0 = L.isr_y(l, 4) + 5, x1 = L.x(s.start), y1 = L.guest_y(l);
            bool white = false;
            for (int dx = -1; dx <= 1; ++dx)
                for (int dy = -1; dy <= 1; ++dy)
                    white = white || img.at(static_cast<int>((x0 + x1) / 2) + dx, static_cast<int>((y0 + y1) / 2) + dy) == gui::kInjectionColor;
            drawn += white;
        }
    INFO(matching << " of " << spans << " spans, " << drawn << " of " << arrows << " lines");
    CHECK(timer_on_3);  // it reaches past the view's end
    REQUIRE(spans >= 4);
    CHECK(matching == spans);
    REQUIRE(arrows >= 1);
    CHECK(drawn == arrows);

    // the tooltip of a handler: its name and vector, when it began after its injection, how long it ran
    const gui::GuestSpan* first = nullptr;
    int first_lane = -1;
    for (int l = 0; l < 4 && !first; ++l)
        for (const auto& s : tl.lanes[static_cast<std::size_t>(l)].guest)
            if (s.start > a && s.end < b && s.inject_ts && L.x(s.end) - L.x(s.start) >= 6) {
                first = &s;
                first_lane = l;
                break;
            }
    REQUIRE(first);
    const int hx = static_cast<int>((L.x(first->start) + L.x(first->end)) / 2), hy = static_cast<int>(L.guest_y(first_lane) + 3);
    std::string printed;
    shoot("--range 59.9404:59.9418 --size " + std::to_string(w) + "x" + std::to_string(h) + " --print-view --hover " + std::to_string(hx) + ":" +
              std::to_string(hy) + " --guest '" + sample("hostguest-guest.dat") + "' '" + sample("hostguest.dat") + "'",
          "guest-hover", "--screenshot", &printed);
    INFO(printed);
    char want[96];
    std::snprintf(want, sizeof want, "vm0/vcpu%d guest handler %s (0x%02x)", first_lane, tl.guest_names[first->name].c_str(), first->vector);
    CHECK(printed.find("hover " + std::string(want)) != std::string::npos);  // (--print-view prints a tooltip's first line)
    gui::SessionSource src;
    src.path = sample("hostguest.dat");
    src.guest = sample("hostguest-guest.dat");
    gui::LoadProgress progress;
    const auto session = gui::load_session(src, progress);
    const auto lines = gui::hover_lines(*session, gui::Filter::all(session->tl), nullptr, L, static_cast<float>(hx), static_cast<float>(hy));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0] == want);
    CHECK(lines[1].find(" after the injection") != std::string::npos);
    CHECK(lines[2].rfind("ran ", 0) == 0);

    // stored with its guest side, the session draws the same pixels; --guest beside a
    // database is refused (the session carries its own)
    const auto db = scratch("guest-gui.db");
    std::filesystem::remove(db);
    REQUIRE(run(cli() + " import '" + sample("hostguest.dat") + "' --guest '" + sample("hostguest-guest.dat") + "' --db '" + db.string() + "'").status == 0);
    Image stored = shoot("--range 59.9404:59.9418 --size " + std::to_string(w) + "x" + std::to_string(h) + " '" + db.string() + "'", "guest-db");
    CHECK(stored.px == img.px);
    const auto refused = run_gui("--guest '" + sample("hostguest-guest.dat") + "' --screenshot '" + scratch("no.png").string() + "' '" + db.string() + "'");
    CHECK(refused.status != 0);
    CHECK(refused.out.find("a stored session carries its own guest trace") != std::string::npos);
}
