// irqflow-gui: per-vCPU interrupt timeline (Dear ImGui + GLFW + OpenGL 3).
//
//   irqflow-gui [options] TRACE          a trace.dat or trace-cmd report text
//   irqflow-gui [options] DB [SESSION]   a session imported with `irqflow import`
//   irqflow-gui [options] --compare A B  two runs, one above the other, and their diff
//
// Mouse and keys: key_help.hpp (the window lists them on ? or F1).
// --screenshot renders one frame to PNG and exits (bug reports, docs, tests).
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "irqflow/capture/readers.hpp"
#include "column_image.hpp"
#include "compare_view.hpp"
#include "go_to.hpp"
#include "hover.hpp"
#include "input.hpp"
#include "overlays.hpp"
#include "panels.hpp"
#include "search.hpp"
#include "session.hpp"
#include "ui_state.hpp"
#include "view.hpp"

namespace {

using namespace irqflow::gui;

struct Options {
    SessionSource src;
    std::string screenshot, vcpus, vector, go_to, tab, search;
    std::string overview_shot;  // the overview shown while loading, once all of it is read, to PNG
    bool panels = false;  // also draw the panels into a screenshot
    bool print_view = false;  // print the view and the inspector's pin whenever they change (input tests)
    bool legend = false, keys = false, absolute_time = false;  // the key of colours, the key overlay, clock time on the axis
    std::optional<std::pair<double, double>> hover;  // --screenshot: the tooltip of the item at this pixel
    std::optional<std::pair<double, int>> inspect;  // inspector preset: time (s) and lane
    int bench_frames = 0;  // render this many frames while zooming and panning, print frame times
    std::optional<std::pair<double, double>> range;
    std::optional<std::pair<double, double>> marks;  // markers A and B, seconds
    std::vector<std::string> compare;  // --compare A B: two runs, A's timeline above B's
    std::vector<std::string> align;    // --align A B: the event or time of each run to line up
    int width = 1400, height = 0;  // height 0: fit the lanes (and the panels)
};

constexpr float kPanelsHeight = 340, kInspectorWidth = 470;

float timeline_height(int rows) { return Layout::fitted_height(rows); }

// A database with several sessions and none named: pick one. Returns its id once clicked.
// With `print`, each row's rectangle goes to stdout (for tests that click one).
std::optional<std::string> session_picker(const std::string& db, const std::vector<StoredSessionEntry>& all, bool print) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(900.0f, io.DisplaySize.x - 20), 0), ImGuiCond_Always);
    ImGui::Begin("Sessions", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    ImGui::Text("%s holds %zu sessions: open one", db.c_str(), all.size());
    std::optional<std::string> picked;
    if (ImGui::BeginTable("sessions", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* c : {"id", "name", "events", "findings"}) ImGui::TableSetupColumn(c);
        ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (const auto& e : all) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable(e.id.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) picked = e.id;
            if (print)
                std::printf("pick %s %.0f %.0f %.0f %.0f\n", e.id.c_str(), ImGui::GetItemRectMin().x, ImGui::GetItemRectMin().y,
                            ImGui::GetItemRectMax().x, ImGui::GetItemRectMax().y);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(e.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(e.events));
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(e.findings));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(e.source.c_str());
        }
        ImGui::EndTable();
    }
    ImGui::End();
    if (print) std::fflush(stdout);
    return picked;
}

// Shown while the session loads: the stage and a progress bar.
void loading_screen(const std::string& what, const LoadProgress& p) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(460, 0), ImGuiCond_Always);
    ImGui::Begin("Loading", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    const int stage = std::clamp(p.stage.load(), 0, kLoadDone);
    ImGui::Text("%s", what.c_str());
    ImGui::Text("%s ...", kLoadStages[stage]);
    ImGui::ProgressBar((static_cast<float>(stage) + std::clamp(p.fraction.load(), 0.0f, 1.0f)) / static_cast<float>(kLoadDone), ImVec2(-1, 0));
    ImGui::End();
}

// Turns the frame's ImGui draw lists (and the strips they show) into pixels in the back buffer.
void render(int fw, int fh, ColumnImage& strips) {
    ImGui::Render();
    strips.upload();
    glViewport(0, 0, fw, fh);
    const auto channel = [](int shift) { return static_cast<float>((kBackground >> shift) & 0xff) / 255.0f; };
    glClearColor(channel(0), channel(8), channel(16), 1.0f);  // the timeline draws no background of its own
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool write_png(const std::string& path, int w, int h) {
    std::vector<unsigned char> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px.data());
    std::vector<unsigned char> flipped(px.size());  // OpenGL rows go bottom-up
    const std::size_t row = static_cast<std::size_t>(w) * 3;
    for (int y = 0; y < h; ++y)
        std::memcpy(&flipped[static_cast<std::size_t>(y) * row], &px[static_cast<std::size_t>(h - 1 - y) * row], row);
    return stbi_write_png(path.c_str(), w, h, 3, flipped.data(), static_cast<int>(row)) != 0;
}

// "A:B" with A < B (--range), "SECONDS:LANE" (--inspect): a CLI11 check and its parse.
template <class T>
std::optional<std::pair<double, T>> pair_of(const std::string& text) {
    double a = 0;
    T b{};
    char tail = 0;
    const char* fmt = std::is_same_v<T, int> ? "%lf:%d%c" : "%lf:%lf%c";
    if (std::sscanf(text.c_str(), fmt, &a, &b, &tail) != 2) return std::nullopt;
    return std::pair<double, T>{a, b};
}

std::optional<int> parse_args(int argc, char** argv, Options& o) {
    CLI::App app{"irqflow-gui: the timeline of a KVM capture or a stored session — per-vCPU ISR state, exits, IPIs,\n"
                 "serial lines and findings — with an inspector of each vCPU's local APIC at any instant.",
                 "irqflow-gui"};
    auto* trace_arg = app.add_option("TRACE|DB", o.src.path, "a capture (as irqflow reads them), or a database of stored sessions");
    auto* compare_arg =
        app.add_option("--compare", o.compare,
                       "two runs (captures, or DB:SESSION) one above the other, zoom and pan locked, with the diff table of `irqflow diff A B`")
            ->type_name("A B")
            ->expected(2)
            ->excludes(trace_arg);
    trace_arg->excludes(compare_arg);
    app.add_option("--align", o.align,
                   "with --compare: line the two timelines up at these places instead of their starts, one in each run "
                   "(TIME in seconds, or #RECORD)")
        ->type_name("TA TB")
        ->expected(2)
        ->needs(compare_arg);
    app.add_option("SESSION", o.src.db_session, "with a database: the session's id or name (left out: pick one)");
    app.add_option("--serial", o.src.serial, "the guest's serial console log of the same run")->type_name("LOG")->excludes(compare_arg);
    app.add_option_function<std::string>(
           "--range", [&o](const std::string& v) { o.range = pair_of<double>(v); },
           "show this time span first, in seconds of the trace clock, A < B")
        ->type_name("A:B")
        ->check(CLI::Validator(
            [](std::string& v) {
                const auto r = pair_of<double>(v);
                return r && r->first < r->second ? std::string() : "A:B seconds with A < B, e.g. 12.5:13";
            },
            "", ""));
    app.add_option("--goto", o.go_to,
                   "zoom to this time (seconds, or 300ms, 17us) or #RECORD (a line of trace-cmd report): the cursor there, its row selected")
        ->type_name("TIME|#RECORD");
    app.add_option("--search", o.search,
                   "search (an event name, field=value, a vector, a rule id; terms are ANDed) and go to the first match")
        ->type_name("QUERY");
    app.add_option("--vcpu", o.vcpus, "show only these vCPUs' lanes (indexes, comma-separated)")->type_name("N,M");
    app.add_option("--vector", o.vector, "highlight one vector (0xec or 236)")->type_name("V");
    app.add_option_function<std::string>(
           "--size", [&o](const std::string& v) { std::sscanf(v.c_str(), "%dx%d", &o.width, &o.height); },
           "the window's size in pixels (height 0: fit the lanes)")
        ->type_name("WxH")
        ->check(CLI::Validator(
            [](std::string& v) {
                int w = 0, h = 0;
                char tail = 0;
                return std::sscanf(v.c_str(), "%dx%d%c", &w, &h, &tail) == 2 && w >= 200 && h >= 0 ? std::string()
                                                                                                     : "WxH pixels, W at least 200";
            },
            "", ""));
    app.add_option("--screenshot", o.screenshot, "render one frame to this PNG and exit (bug reports, docs, tests)")->type_name("PNG");
    app.add_flag("--panels", o.panels, "with --screenshot: draw the panels too");
    app.add_option("--tab", o.tab, "with --screenshot: the panel tab to show")
        ->type_name("TAB")
        ->check(CLI::IsMember({"findings", "statistics", "latency", "events", "selection"}))
        ->each([&o](const std::string&) { o.panels = true; });
    app.add_option_function<std::string>(
           "--inspect",
           [&o](const std::string& v) {
               o.inspect = pair_of<int>(v);
               o.panels = true;
           },
           "with --screenshot: the inspector pinned at this time (seconds) on this lane")
        ->type_name("SECONDS:LANE")
        ->check(CLI::Validator([](std::string& v) { return pair_of<int>(v) ? std::string() : "SECONDS:LANE, e.g. 13.2:1"; }, "", ""));
    app.add_flag("--legend", o.legend, "show the key of colours (L in the window)");
    app.add_flag("--keys", o.keys, "show the list of keys and mouse actions (? or F1 in the window)");
    app.add_option_function<std::string>(
           "--hover", [&o](const std::string& v) { o.hover = pair_of<double>(v); },
           "with --screenshot: show the tooltip of the timeline item at this pixel (the pointer itself is ignored)")
        ->type_name("X:Y")
        ->check(CLI::Validator([](std::string& v) { return pair_of<double>(v) ? std::string() : "X:Y pixels, e.g. 600:110"; }, "", ""));
    app.add_option_function<std::string>(
           "--marks", [&o](const std::string& v) { o.marks = pair_of<double>(v); },
           "markers A and B at these times (seconds of the trace clock); the selection tab shows what lies between")
        ->type_name("A:B")
        ->check(CLI::Validator([](std::string& v) { return pair_of<double>(v) ? std::string() : "A:B seconds, e.g. 12.5:12.6"; }, "", ""));
    app.add_flag("--absolute-time", o.absolute_time, "label the time axis in trace-clock seconds, not from the trace start (T)");
    app.add_option("--screenshot-overview", o.overview_shot, "render the overview shown while loading, once all of it is read, to this PNG")
        ->type_name("PNG");
    app.add_option("--bench-frames", o.bench_frames, "render N frames while zooming and panning, print the frame times, exit")
        ->type_name("N")
        ->check(CLI::PositiveNumber);
    app.add_flag("--print-view", o.print_view, "print the view and the inspector's pin whenever they change (input tests)")
        ->group("");  // for tests, not in the help
    app.footer("\nExamples:\n  irqflow-gui samples/pveoi-on.dat --vector 0xec\n  irqflow-gui sessions.db pveoi-on --range 12.5:13\n"
               "  irqflow-gui trace.dat --screenshot shot.png --panels --tab findings\n\nExit: 0, 2 bad input, 64 usage error.");
    try {
        app.parse(argc, argv);
        if (o.src.path.empty() && o.compare.empty()) throw CLI::RequiredError("TRACE|DB");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "irqflow-gui: %s\nRun `irqflow-gui --help` for the options.\n", e.what());
        return 64;
    }
    return std::nullopt;
}

// The view, filter and inspector the options ask for, once the session is there.
bool apply_options(const Options& o, const Session& s, UiState& u) {
    std::string error;
    auto f = parse_filter(s.tl, o.vcpus, o.vector, error);
    if (!f) {
        std::fprintf(stderr, "irqflow-gui: %s\n", error.c_str());
        return false;
    }
    for (std::size_t l = 0; l < f->lane_shown.size(); ++l) u.set_lane_shown(static_cast<int>(l), f->lane_shown[l]);
    u.set_vector(s.tl, f->vector);
    if (f->vector >= 0) std::snprintf(u.vector_text, sizeof u.vector_text, "0x%02x", f->vector);
    const auto seconds = [](std::int64_t ns) { return irqflow::gui::seconds_text(ns, 1000); };
    const std::string extent = " (" + s.title + " spans " + seconds(s.tl.t0) + " .. " + seconds(s.tl.t1) + ")";
    if (o.range) {
        const auto a = static_cast<std::int64_t>(o.range->first * 1e9), b = static_cast<std::int64_t>(o.range->second * 1e9);
        if (b <= s.tl.t0 || a >= s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --range %g:%g: outside the trace%s\n", o.range->first, o.range->second, extent.c_str());
            return false;
        }
        u.nav.set(a, b);
    }
    if (!o.go_to.empty()) {
        const auto target = go_to_target(s.trace, o.go_to);
        if (!target || target->ts < s.tl.t0 || target->ts > s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --goto %s: no such time or record in %s%s\n", o.go_to.c_str(), s.title.c_str(), extent.c_str());
            return false;
        }
        go_to(s, u, target->ts, target->event);
    }
    if (!o.search.empty()) {
        error.clear();
        const auto terms = parse_search(s, o.search, error);
        if (!terms) {
            std::fprintf(stderr, "irqflow-gui: --search %s: %s\n", o.search.c_str(), error.c_str());
            return false;
        }
        std::snprintf(u.search_text, sizeof u.search_text, "%s", o.search.c_str());
        u.searched = o.search;
        u.matches.filtered = true;
        u.matches.picked = search_events(s, *terms);
        u.match = step_match(s.trace, u.matches.picked, std::nullopt, s.tl.t0, true);
        if (u.match) go_to(s, u, s.trace.events.ts(u.matches.picked[*u.match]).value(), u.matches.picked[*u.match]);
    }
    if (o.inspect) {
        const auto ts = static_cast<std::int64_t>(o.inspect->first * 1e9);
        if (o.inspect->second < 0 || static_cast<std::size_t>(o.inspect->second) >= s.tl.lanes.size()) {
            std::fprintf(stderr, "irqflow-gui: --inspect %g:%d: no lane %d; lanes are 0..%zu\n", o.inspect->first, o.inspect->second,
                         o.inspect->second, s.tl.lanes.size() - 1);
            return false;
        }
        if (ts < s.tl.t0 || ts > s.tl.t1) {
            std::fprintf(stderr, "irqflow-gui: --inspect: %g s is outside the trace%s\n", o.inspect->first, extent.c_str());
            return false;
        }
        u.shown_ts = ts;
        u.shown_lane = o.inspect->second;
        u.states = s.index->at(u.shown_ts);
        u.pinned = true;
    }
    if (o.marks) {
        for (double t : {o.marks->first, o.marks->second})
            if (t * 1e9 < static_cast<double>(s.tl.t0) || t * 1e9 > static_cast<double>(s.tl.t1)) {
                std::fprintf(stderr, "irqflow-gui: --marks: %g s is outside the trace%s\n", t, extent.c_str());
                return false;
            }
        u.mark_a = static_cast<std::int64_t>(std::llround(o.marks->first * 1e9));
        u.mark_b = static_cast<std::int64_t>(std::llround(o.marks->second * 1e9));
    }
    if (!o.tab.empty()) u.open_tab = o.tab;
    u.print_view = o.print_view;
    u.show_legend = o.legend;
    u.show_keys = o.keys;
    u.absolute_time = o.absolute_time;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (auto rc = parse_args(argc, argv, o)) return *rc;
    const bool offscreen = !o.screenshot.empty() || !o.overview_shot.empty() || o.bench_frames > 0;
    const bool with_panels = !offscreen || o.panels;

    // Screenshots load first (deterministic); the window (and --bench-frames, which
    // times it) opens at once and loads on a background thread, showing a trace file's
    // overview as the first pass reads it, else a progress bar.
    LoadProgress progress;
    progress.hold_after_overview = !o.overview_shot.empty();
    std::atomic<bool> loaded{false};
    std::unique_ptr<Session> S;
    std::string load_error;
    std::thread loader;
    std::vector<StoredSessionEntry> picking;  // sessions to choose from before loading
    auto load = [&] {
        try {
            S = load_session(o.src, progress);
        } catch (const std::exception& e) {
            load_error = e.what();
        }
        loaded = true;
    };
    // Joins the loader, first letting it past a --screenshot-overview hold (else a window
    // that fails to open would wait for it forever).
    auto stop_loader = [&] {
        progress.resume = true;
        if (loader.joinable()) loader.join();
    };
    const auto started = std::chrono::steady_clock::now();
    auto seconds_since_start = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
    // --bench-frames: when the first picture of the trace came, the overview of all of it, and the full timeline
    double first_frame_s = -1, overview_s = -1, details_s = -1;
    const char* first_frame_kind = "";
    // --compare: both runs loaded first (the diff table needs both), A as the session
    std::unique_ptr<Session> SB;
    if (!o.compare.empty()) {
        o.src = source_of(o.compare[0]);
        try {
            LoadProgress progress_b;
            SB = load_session(source_of(o.compare[1]), progress_b);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "irqflow-gui: %s\n", e.what());
            return 2;
        }
    }
    if (!o.screenshot.empty() || SB) {  // deterministic: the whole session, then one picture
        load();
        if (!load_error.empty()) {
            std::fprintf(stderr, "irqflow-gui: %s\n", load_error.c_str());
            return 2;
        }
    } else {
        // The loader thread must not fork (the trace.dat header probe does): probe here,
        // while this is the only thread, and have the loader skip it.
        if (!is_database(o.src.path)) {
            try {
                irqflow::check_trace_headers(o.src.path);
                o.src.headers_checked = true;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "irqflow-gui: %s\n", e.what());
                return 2;
            }
        }
        // a database with several sessions and none named: the window asks which
        std::vector<StoredSessionEntry> choices;
        if (o.src.db_session.empty() && o.src.serial.empty() && is_database(o.src.path)) {
            try {
                choices = list_sessions(o.src.path);
            } catch (const std::exception&) {  // the loader reports it, with the file named
            }
        }
        if (choices.size() > 1) picking = std::move(choices);
        else loader = std::thread(load);
    }
    std::unique_ptr<UiState> U;
    std::unique_ptr<CompareState> C;
    if (S) {
        U = std::make_unique<UiState>(*S);
        if (!apply_options(o, *S, *U)) return 64;  // a value this trace cannot have
        if (SB) C = std::make_unique<CompareState>(*S, *SB);
        if (C && !o.align.empty()) {
            const auto ta = go_to_target(S->trace, o.align[0]), tb = go_to_target(SB->trace, o.align[1]);
            for (const auto& [t, given, run] : {std::tuple{&ta, &o.align[0], S.get()}, {&tb, &o.align[1], SB.get()}})
                if (!*t || (*t)->ts < run->tl.t0 || (*t)->ts > run->tl.t1) {
                    std::fprintf(stderr, "irqflow-gui: --align %s %s: no time or record %s in %s (it spans %s .. %s)\n", o.align[0].c_str(),
                                 o.align[1].c_str(), given->c_str(), run->title.c_str(), seconds_text(run->tl.t0, 1000).c_str(),
                                 seconds_text(run->tl.t1, 1000).c_str());
                    return 64;
                }
            C->shift = tb->ts - ta->ts;
        }
    }
    if (o.height == 0 && C)
        o.height = static_cast<int>(compare_plot_height(*S, U->filter) + compare_plot_height(*SB, C->filter_b) + (with_panels ? kPanelsHeight : 0));
    if (o.height == 0)
        o.height = S ? static_cast<int>(timeline_height(U->filter.row_count()) + (with_panels ? kPanelsHeight : 0)) : 800;

    if (!glfwInit()) {
        std::fprintf(stderr, "irqflow-gui: cannot initialise GLFW (no display? run under xvfb-run)\n");
        stop_loader();
        return 2;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_RESIZABLE, o.screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
    const std::string title = !S ? "irqflow (loading) " + o.src.path : "irqflow - " + S->title + (SB ? " vs " + SB->title : std::string());
    GLFWwindow* win = glfwCreateWindow(o.width, o.height, title.c_str(), nullptr, nullptr);
    if (!win) {
        std::fprintf(stderr, "irqflow-gui: cannot create an OpenGL 3.3 window\n");
        glfwTerminate();
        stop_loader();
        return 2;
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(o.bench_frames > 0 ? 0 : 1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    WindowInput::install(win);  // before ImGui's backend, which chains to it
    ImGui_ImplGlfw_InitForOpenGL(win, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    auto strips = std::make_unique<ColumnImage>();  // GL objects: released before the context
    int frames = 0, rc = 0, quiet_frames = 0;
    std::vector<double> frame_ms, draw_ms;  // whole frame; building our draw lists
    std::uint64_t vertices = 0;
    WindowInput input;
    std::optional<ViewRange> overview_view;  // set once the overview is zoomed or panned
    while (!glfwWindowShouldClose(win)) {
        // a few frames after the last input let ImGui settle (hover, tab switches); then
        // wait for input, waking now and then for the loader's progress
        if (offscreen || quiet_frames < 8) glfwPollEvents();
        else glfwWaitEventsTimeout(U ? 0.5 : 0.05);
        quiet_frames = WindowInput::take_activity() ? 0 : quiet_frames + 1;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        if (offscreen) {  // a picture must not depend on where the X pointer happens to be
            ImGuiIO& io = ImGui::GetIO();
            io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
            for (bool& down : io.MouseDown) down = false;
        }
        ImGui::NewFrame();
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(win, &fw, &fh);
        strips->begin(fw);
        if (!U && loaded) {
            stop_loader();
            if (!S) {
                std::fprintf(stderr, "irqflow-gui: %s\n", load_error.c_str());
                rc = 2;
                ImGui::EndFrame();
                break;
            }
            U = std::make_unique<UiState>(*S);
            if (!apply_options(o, *S, *U)) {
                rc = 64;
                ImGui::EndFrame();
                break;
            }
            if (overview_view && !o.range) U->nav.set(overview_view->t0, overview_view->t1);  // keep where the overview was looked at
            glfwSetWindowTitle(win, ("irqflow - " + S->title).c_str());
            quiet_frames = 0;  // the new windows take a few frames to lay out
        }
        if (!picking.empty()) {
            if (auto id = session_picker(o.src.path, picking, o.print_view && frames++ == 3)) {  // once laid out
                o.src.db_session = *id;
                picking.clear();
                loader = std::thread(load);
            }
            render(fw, fh, *strips);
            glfwSwapBuffers(win);
            continue;
        }
        if (!U) {  // loading: the overview read so far (ui/README.md, "Opening big traces"), else a progress bar
            if (auto ov = progress.overview.snapshot()) {
                // zoom and pan work at once; until they are used the view follows the read part as it grows
                Navigator nav(ov->t0, std::max(ov->last_ts, ov->t0 + 1));
                if (overview_view) nav.set(overview_view->t0, overview_view->t1);
                const Layout before{static_cast<float>(fw), static_cast<float>(fh), nav.view().t0, nav.view().t1};
                input.overview(win, nav, before);
                if (overview_view || nav.view().t0 != before.t0 || nav.view().t1 != before.t1) overview_view = nav.view();
                const Layout view{static_cast<float>(fw), static_cast<float>(fh), nav.view().t0, nav.view().t1};
                ImDrawList* dl = ImGui::GetBackgroundDrawList();
                draw_overview(dl, *ov, view, strips.get());
                char status[160];
                const int stage = std::clamp(progress.stage.load(), 0, kLoadDone);
                std::snprintf(status, sizeof status, "overview of %llu events, %.6f s .. %.6f s; %s ...",
                              static_cast<unsigned long long>(ov->events), static_cast<double>(ov->t0) / 1e9,
                              static_cast<double>(ov->last_ts) / 1e9, kLoadStages[stage]);
                dl->AddText(ImVec2(Layout::kGutter, 4), 0xffdcdcdc, status);
                if (first_frame_s < 0) {
                    first_frame_s = seconds_since_start();
                    first_frame_kind = "overview";
                }
                if (overview_s < 0 && progress.stage >= 1) overview_s = seconds_since_start();
                if (!o.overview_shot.empty() && progress.stage >= 1 && ++frames >= 3) {  // whole first pass, layout settled
                    render(fw, fh, *strips);
                    rc = write_png(o.overview_shot, fw, fh) ? 0 : 2;
                    if (rc) std::fprintf(stderr, "irqflow-gui: cannot write %s\n", o.overview_shot.c_str());
                    progress.resume = true;
                    break;
                }
            } else {
                loading_screen(o.src.path, progress);
            }
            render(fw, fh, *strips);
            glfwSwapBuffers(win);
            continue;
        }
        if (details_s < 0) details_s = seconds_since_start();
        if (first_frame_s < 0) {
            first_frame_s = details_s;
            first_frame_kind = "timeline";
        }
        UiState& u = *U;
        const Timeline& tl = S->tl;
        if (C) {  // two runs: both timelines, zoom and pan as one, the diff table below
            const float both = compare_plot_height(*S, u.filter) + compare_plot_height(*SB, C->filter_b);
            const Layout layout{static_cast<float>(fw), both, u.nav.view().t0, u.nav.view().t1};
            if (!offscreen) input.frame(win, *S, u, layout);
            ImDrawList* dl = ImGui::GetBackgroundDrawList();
            dl->Flags &= ~(ImDrawListFlags_AntiAliasedFill | ImDrawListFlags_AntiAliasedLines);
            draw_compare(dl, *S, u, *C, static_cast<float>(fw), strips.get());
            if (with_panels) {  // below the plots, over B's bottom when the window is too short for both
                const float ph = std::max(160.0f, static_cast<float>(fh) - both);
                compare_panel(*S, u, *C, 0, static_cast<float>(fh) - ph, static_cast<float>(fw), ph);
            }
            if (o.print_view) {
                static std::pair<ViewRange, std::int64_t> printed{{-1, -1}, 0};
                if (u.nav.view().t0 != printed.first.t0 || u.nav.view().t1 != printed.first.t1 || C->shift != printed.second) {
                    printed = {u.nav.view(), C->shift};
                    std::printf("view %lld %lld shift %lld\n", static_cast<long long>(printed.first.t0), static_cast<long long>(printed.first.t1),
                                static_cast<long long>(printed.second));
                }
                std::fflush(stdout);
            }
            render(fw, fh, *strips);
            if (!o.screenshot.empty() && ++frames == 3) {
                rc = write_png(o.screenshot, fw, fh) ? 0 : 2;
                if (rc) std::fprintf(stderr, "irqflow-gui: cannot write %s\n", o.screenshot.c_str());
                break;
            }
            glfwSwapBuffers(win);
            continue;
        }
        const float plot_h = with_panels ? std::max(timeline_height(u.filter.row_count()), static_cast<float>(fh) - kPanelsHeight)
                                         : static_cast<float>(fh);
        const Layout layout{static_cast<float>(fw), plot_h, u.nav.view().t0, u.nav.view().t1,
                            Layout::fit_lane_height(plot_h, u.filter.row_count())};
        if (!offscreen) input.frame(win, *S, u, layout);
        const auto draw_start = std::chrono::steady_clock::now();
        ImDrawList* timeline_dl = ImGui::GetBackgroundDrawList();
        // the timeline is axis-aligned pixel columns: anti-aliased fringes would only add vertices
        timeline_dl->Flags &= ~(ImDrawListFlags_AntiAliasedFill | ImDrawListFlags_AntiAliasedLines);
        if (o.print_view) {  // what input did, for tests that drive the window with xdotool
            static ViewRange printed{-1, -1};
            static std::pair<int, std::int64_t> pin{-1, -1};
            if (u.nav.view().t0 != printed.t0 || u.nav.view().t1 != printed.t1) {
                printed = u.nav.view();
                std::printf("view %lld %lld\n", static_cast<long long>(printed.t0), static_cast<long long>(printed.t1));
            }
            static std::string axis_printed;
            const TimeAxis axis = time_axis(layout.t0, layout.t1, tl.t0, layout.width - Layout::kGutter, !u.absolute_time);
            std::string axis_line = "axis " + axis.base + " |";
            for (const auto& t : axis.ticks) axis_line += " " + t.label;
            if (axis_line != axis_printed) {
                axis_printed = axis_line;
                std::printf("%s\n", axis_line.c_str());
            }
            static std::pair<std::int64_t, std::int64_t> marks{-1, -1};
            if (std::pair{u.mark_a, u.mark_b} != marks) {
                marks = {u.mark_a, u.mark_b};
                std::printf("marks %lld %lld\n", static_cast<long long>(marks.first), static_cast<long long>(marks.second));
            }
            if (u.pinned && std::pair{u.shown_lane, u.shown_ts} != pin) {
                pin = {u.shown_lane, u.shown_ts};
                std::printf("inspect %d %lld\n", pin.first, static_cast<long long>(pin.second));
            }
            std::fflush(stdout);
        }
        draw_timeline(timeline_dl, tl, u.filter, u.only ? &*u.only : nullptr, layout, 0, 0, strips.get(),
                      ViewMarks{u.absolute_time, u.pinned ? u.shown_ts : -1, u.mark_a, u.mark_b});
        if (with_panels) {
            const float below = plot_h, h = static_cast<float>(fh) - below;
            inspector(*S, u, layout, 0, below, kInspectorWidth, h);
            panels(*S, u, kInspectorWidth, below, static_cast<float>(fw) - kInspectorWidth, h);
        }
        {  // the tooltip of what is under the pointer (or at --hover in a screenshot)
            const ImGuiIO& io = ImGui::GetIO();
            const bool free_pointer = !offscreen && !io.WantCaptureMouse && !u.dragging && io.MousePos.y < plot_h;
            std::vector<std::string> tip;
            if (o.hover) tip = hover_lines(*S, u.filter, u.only ? &*u.only : nullptr, layout, static_cast<float>(o.hover->first),
                                           static_cast<float>(o.hover->second));
            else if (free_pointer) tip = hover_lines(*S, u.filter, u.only ? &*u.only : nullptr, layout, io.MousePos.x, io.MousePos.y);
            if (!tip.empty()) {
                if (o.hover) ImGui::SetNextWindowPos(ImVec2(static_cast<float>(o.hover->first) + 16, static_cast<float>(o.hover->second) + 8));
                ImGui::BeginTooltip();
                for (const auto& line : tip) ImGui::TextUnformatted(line.c_str());
                ImGui::EndTooltip();
            }
            if (o.print_view) {
                static std::string printed;
                const std::string first = tip.empty() ? "" : tip.front();
                if (first != printed && !first.empty()) std::printf("hover %s\n", first.c_str());
                printed = first;
                std::fflush(stdout);
            }
        }
        if (u.show_legend && u.legend.empty()) u.legend = legend(tl);
        legend_window(u.legend, u, static_cast<float>(fw), Layout::kTop, plot_h);  // over the plot, not the panels
        key_help_window(u);
        const auto draw_end = std::chrono::steady_clock::now();
        render(fw, fh, *strips);
        if (o.bench_frames > 0) {  // zoom in and out around moving points, panning as it goes
            glFinish();
            if (frames > 2) {
                draw_ms.push_back(std::chrono::duration<double, std::milli>(draw_end - draw_start).count());
                vertices += static_cast<std::uint64_t>(ImGui::GetDrawData()->TotalVtxCount);
            }
            static auto last = std::chrono::steady_clock::now();
            const auto now = std::chrono::steady_clock::now();
            if (frames > 2) frame_ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
            last = now;
            const double phase = static_cast<double>(frames % 120) / 120.0;
            const double scale = phase < 0.5 ? 1.0 - 1.9 * phase : 0.05 + 1.9 * (phase - 0.5);
            const double full = static_cast<double>(tl.t1 - tl.t0);
            const double centre = static_cast<double>(tl.t0) + full * (0.2 + 0.6 * static_cast<double>(frames % 97) / 97.0);
            u.nav.set(static_cast<std::int64_t>(centre - full * scale / 2), static_cast<std::int64_t>(centre + full * scale / 2));
            if (++frames >= o.bench_frames + 3) {
                std::sort(frame_ms.begin(), frame_ms.end());
                double sum = 0, draw = 0;
                for (double f : frame_ms) sum += f;
                for (double f : draw_ms) draw += f;
                const double n = static_cast<double>(frame_ms.size());
                std::printf("irqflow-gui: %zu events, %zu frames at %dx%d: mean %.2f ms, p99 %.2f ms, max %.2f ms per frame; "
                            "building the draw lists %.2f ms, %.0f vertices per frame; first frame after %.2f s (%s), "
                            "overview of the whole trace after %.2f s, the whole timeline after %.2f s\n",
                            S->trace.events.size(), frame_ms.size(), fw, fh, sum / n, frame_ms[frame_ms.size() * 99 / 100], frame_ms.back(),
                            draw / n, static_cast<double>(vertices) / n, first_frame_s, first_frame_kind, overview_s, details_s);
                break;
            }
        }
        if (!o.screenshot.empty() && ++frames == 3) {  // fonts and layout settle in the first frames
            rc = write_png(o.screenshot, fw, fh) ? 0 : 2;
            if (rc) std::fprintf(stderr, "irqflow-gui: cannot write %s\n", o.screenshot.c_str());
            break;
        }
        glfwSwapBuffers(win);
    }
    strips.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(win);
    glfwTerminate();
    stop_loader();  // closed while loading: the window is gone, finish quietly
    return rc;
}
