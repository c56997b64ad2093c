// irqflow-gui: per-vCPU interrupt timeline (Dear ImGui + GLFW + OpenGL 3).
//
//   irqflow-gui [options] TRACE          a trace.dat or trace-cmd report text
//   irqflow-gui [options] DB [SESSION]   a session imported with `irqflow import`
//   irqflow-gui [options] --compare A B  two runs, one above the other, and their diff
//
// Mouse and keys: key_help.hpp (the window lists them on ? or F1).
// --screenshot renders one frame to PNG and exits (bug reports, docs, tests).
//
// This file is the window and its frame loop; the options (options.cpp), the loader
// (session_loader.cpp), what is drawn (the *_view files), the screenshots
// (frame_output.cpp), --bench-frames (frame_bench.cpp) and --print-view
// (print_view.cpp) are each in their own file: ui/gui/README.md.
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "irqflow/capture/readers.hpp"
#include "column_image.hpp"
#include "compare_view.hpp"
#include "frame_bench.hpp"
#include "frame_output.hpp"
#include "go_to.hpp"
#include "hover.hpp"
#include "input.hpp"
#include "loading_view.hpp"
#include "options.hpp"
#include "overlays.hpp"
#include "panels_view.hpp"
#include "print_view.hpp"
#include "session.hpp"
#include "session_loader.hpp"
#include "time_axis.hpp"
#include "timeline_view.hpp"
#include "ui_state.hpp"

using namespace irqflow::gui;

namespace {
constexpr int kScreenshotFrame = 6;  // --screenshot writes this frame of the timeline
}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (auto rc = parse_args(argc, argv, o)) return *rc;
    const bool offscreen = !o.screenshot.empty() || !o.overview_shot.empty() || o.bench_frames > 0;
    const bool with_panels = !offscreen || o.panels;

    // Screenshots load first (deterministic); the window (and --bench-frames, which
    // times it) opens at once and loads on a background thread, showing a trace file's
    // overview as the first pass reads it, else a progress bar.
    SessionLoader loader(!o.overview_shot.empty());
    LoadProgress& progress = loader.progress;
    std::unique_ptr<Session>& S = loader.session;
    std::vector<StoredSessionEntry> picking;  // sessions to choose from before loading
    FrameBench bench(o.bench_frames);
    ViewPrinter printer;
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
        loader.load(o.src);
        if (!loader.error.empty()) {
            std::fprintf(stderr, "irqflow-gui: %s\n", loader.error.c_str());
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
        else loader.start(o.src);
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
        o.height = S ? static_cast<int>(Layout::fitted_height(U->filter.row_count(), S->tl.has_guest()) + (with_panels ? kPanelsHeight : 0)) : 800;

    if (!glfwInit()) {
        std::fprintf(stderr, "irqflow-gui: cannot initialise GLFW (no display? run under xvfb-run)\n");
        loader.stop();
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
        loader.stop();
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
        if (!U && loader.done()) {
            loader.stop();
            if (!S) {
                std::fprintf(stderr, "irqflow-gui: %s\n", loader.error.c_str());
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
            if (overview_view && o.range.empty()) U->nav.set(overview_view->t0, overview_view->t1);  // keep where the overview was looked at
            glfwSetWindowTitle(win, ("irqflow - " + S->title).c_str());
            quiet_frames = 0;  // the new windows take a few frames to lay out
        }
        if (!picking.empty()) {
            if (auto id = session_picker(o.src.path, picking, o.print_view && frames++ == 3)) {  // once laid out
                o.src.db_session = *id;
                picking.clear();
                loader.start(o.src);
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
                bench.first_picture("overview");
                if (progress.stage >= 1) bench.overview_whole();
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
        bench.timeline_shown();
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
            if (o.print_view) printer.compare(u, C->shift);
            render(fw, fh, *strips);
            if (!o.screenshot.empty() && ++frames == kScreenshotFrame) {
                rc = write_png(o.screenshot, fw, fh) ? 0 : 2;
                if (rc) std::fprintf(stderr, "irqflow-gui: cannot write %s\n", o.screenshot.c_str());
                break;
            }
            glfwSwapBuffers(win);
            continue;
        }
        const float plot_h = with_panels ? std::max(Layout::fitted_height(u.filter.row_count(), tl.has_guest()), static_cast<float>(fh) - kPanelsHeight)
                                         : static_cast<float>(fh);
        // the key of colours docks right of the lanes: the lanes end where it begins
        if (u.show_legend && u.legend.empty()) u.legend = legend(tl);
        const float key_w = u.show_legend ? legend_dock_width(u.legend, static_cast<float>(fw)) : 0;
        const Layout layout{static_cast<float>(fw) - key_w, plot_h, u.nav.view().t0, u.nav.view().t1,
                            Layout::fit_lane_height(plot_h, u.filter.row_count(), tl.has_guest()), tl.has_guest()};
        if (!offscreen) input.frame(win, *S, u, layout);
        const auto draw_start = std::chrono::steady_clock::now();
        ImDrawList* timeline_dl = ImGui::GetBackgroundDrawList();
        // the timeline is axis-aligned pixel columns: anti-aliased fringes would only add vertices
        timeline_dl->Flags &= ~(ImDrawListFlags_AntiAliasedFill | ImDrawListFlags_AntiAliasedLines);
        if (o.print_view) printer.timeline(u, layout, tl);  // what input did, for tests that drive the window with xdotool
        draw_timeline(timeline_dl, tl, u.filter, u.only ? &*u.only : nullptr, layout, 0, 0, strips.get(),
                      ViewMarks{u.absolute_time, u.pinned ? u.shown_ts : -1, u.mark_a, u.mark_b});
        if (with_panels) {
            const float below = plot_h, h = static_cast<float>(fh) - below;
            u.panel_tip.clear();
            inspector(*S, u, layout, 0, below, kInspectorWidth, h);
            panels(*S, u, kInspectorWidth, below, static_cast<float>(fw) - kInspectorWidth, h);
            if (o.print_view) printer.panel_tip(u.panel_tip);
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
            if (o.print_view) printer.hover(tip);
        }
        legend_window(u.legend, u, layout.width, 0, plot_h);  // beside the plot, not the panels
        key_help_window(u);
        const auto draw_end = std::chrono::steady_clock::now();
        render(fw, fh, *strips);
        if (bench.on() && bench.frame_done(frames++, tl, u, S->trace.events.size(), fw, fh, draw_start, draw_end)) break;
        // fonts and layout settle in the first frames; a table opened by --tab measures its
        // columns in its first frame and shows its scrollbars from the next ones
        if (!o.screenshot.empty() && ++frames == kScreenshotFrame) {
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
    loader.stop();  // closed while loading: the window is gone, finish quietly
    return rc;
}
