// irqflow-gui: per-vCPU interrupt timeline (Dear ImGui + GLFW + OpenGL 3).
//
//   irqflow-gui [--serial LOG] [--screenshot out.png [--panels] [--inspect S:LANE]] [--bench-frames N] [--range A:B]
//               [--size WxH] TRACE
//
// --screenshot renders one frame and exits (bug reports, docs, tests). --range is in
// seconds of trace time. Wheel: zoom around the cursor; drag: pan; +/-: zoom;
// arrows: pan; Home/End: whole trace; N/P: next/previous finding.
#include <GL/gl.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "inspector_model.hpp"
#include "timeline.hpp"
#include "view.hpp"

namespace {

struct Options {
    std::string trace, serial, screenshot;
    bool panels = false;  // also draw the panels into a screenshot
    std::optional<std::pair<double, int>> inspect;  // inspector preset: time (s) and lane
    int bench_frames = 0;  // render this many frames while zooming and panning, print frame times
    std::optional<std::pair<double, double>> range;
    int width = 1400, height = 0;  // height 0: fit the lanes
};

// Everything the window shows, built once. Held by pointer: the state index refers to
// the trace, so the session never moves after it is built.
struct Session {
    irqflow::Trace trace;
    std::optional<irqflow::SerialLog> serial;
    irqflow::replay::ReplayResult replay;
    irqflow::gui::Timeline tl;
    std::unique_ptr<irqflow::gui::StateIndex> index;
};

// Loading stages, shown on the progress screen while the loader thread works.
constexpr const char* kStages[] = {"reading the trace", "aligning the serial log", "replaying", "building the timeline",
                                   "indexing APIC states", "ready"};

std::unique_ptr<Session> load_session(const Options& o, std::atomic<int>& stage) {
    auto s = std::make_unique<Session>();
    stage = 0;
    s->trace = irqflow::load_trace(o.trace);
    stage = 1;
    if (!o.serial.empty()) {
        s->serial = irqflow::read_serial_log(o.serial);
        irqflow::align_serial(s->trace, *s->serial);
    }
    stage = 2;
    irqflow::replay::ReplayOptions ro;
    ro.collect_details = true;
    s->replay = irqflow::replay::replay(s->trace, ro);
    stage = 3;
    s->tl = irqflow::gui::build_timeline(s->trace, s->replay, s->serial ? &*s->serial : nullptr);
    stage = 4;
    s->index = std::make_unique<irqflow::gui::StateIndex>(s->trace);
    stage = 5;
    return s;
}

// Shown while the session loads: the stage and an indeterminate-looking bar.
void loading_screen(const std::string& trace, int stage) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x / 2, io.DisplaySize.y / 2), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(460, 0), ImGuiCond_Always);
    ImGui::Begin("Loading", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
    ImGui::Text("%s", trace.c_str());
    ImGui::Text("%s ...", kStages[std::clamp(stage, 0, 5)]);
    ImGui::ProgressBar(static_cast<float>(stage) / 5.0f, ImVec2(-1, 0));
    ImGui::End();
}

// Turns the frame's ImGui draw lists into pixels in the back buffer.
void render(int fw, int fh) {
    ImGui::Render();
    glViewport(0, 0, fw, fh);
    glClearColor(0.12f, 0.12f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

int usage(const char* why) {
    std::fprintf(stderr, "irqflow-gui: %s\nusage: irqflow-gui [--serial LOG] [--screenshot out.png] [--range A:B] [--size WxH] TRACE\n", why);
    return 64;
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

// Centres the view on ts, keeping the zoom.
void centre_on(std::int64_t ts, std::int64_t& t0, std::int64_t& t1) {
    const std::int64_t half = (t1 - t0) / 2;
    t0 = ts - half;
    t1 = ts + half;
}

// Interactive panels (not in screenshots): findings (click or N/P to jump) and the
// replay's statistics.
void panels(const irqflow::gui::Timeline& tl, const irqflow::replay::ReplayResult& r, std::int64_t& t0, std::int64_t& t1) {
    const std::int64_t mid = (t0 + t1) / 2;
    if (!tl.findings.empty() && (ImGui::IsKeyPressed(GLFW_KEY_N) || ImGui::IsKeyPressed(GLFW_KEY_P))) {
        const bool next = ImGui::IsKeyPressed(GLFW_KEY_N);
        const irqflow::gui::FindingMark* pick = nullptr;
        for (const auto& f : tl.findings)
            if (next ? (f.ts > mid && (!pick || f.ts < pick->ts)) : (f.ts < mid && (!pick || f.ts > pick->ts))) pick = &f;
        if (pick) centre_on(pick->ts, t0, t1);
    }
    ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 380, ImGui::GetIO().DisplaySize.y - 260), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(370, 250), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Findings (N/P: next/previous)")) {
        if (tl.findings.empty()) ImGui::TextUnformatted("no divergences or liveness failures");
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            const auto& f = r.findings[i];
            char line[160];
            std::snprintf(line, sizeof line, "%.6f vcpu%d %s##%zu", static_cast<double>(f.ts.value()) / 1e9, f.vcpu.value(),
                          std::string(irqflow::replay::rule_info(f.rule).id).c_str(), i);
            if (ImGui::Selectable(line)) centre_on(f.ts.value(), t0, t1);
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("expected %s\nobserved %s", f.expected.c_str(), f.observed.c_str());
        }
    }
    ImGui::End();
    ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x - 760, ImGui::GetIO().DisplaySize.y - 260), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(370, 250), ImGuiCond_FirstUseEver);
    if (ImGui::Begin("Statistics")) {
        const auto& s = r.stats;
        ImGui::Text("exits %llu; saved by PV EOI %llu, by PV IPI %llu", static_cast<unsigned long long>(s.exits),
                    static_cast<unsigned long long>(s.exits_saved_pv_eoi), static_cast<unsigned long long>(s.exits_saved_pv_ipi));
        ImGui::Text("PV EOI hit rate %.1f%%, max nesting %d", 100.0 * s.pv_eoi_hit_rate, s.max_nesting);
        ImGui::Text("checked %llu/%llu injections, %llu EOIs", static_cast<unsigned long long>(s.injections_checked),
                    static_cast<unsigned long long>(s.injections - s.soft_injections - s.reinjections), static_cast<unsigned long long>(s.eois_checked));
        ImGui::Separator();
        for (const auto& [reason, n] : s.exits_by_reason) ImGui::Text("%8llu  %s", static_cast<unsigned long long>(n), reason.c_str());
    }
    ImGui::End();
}

// One 16x16 grid of a 256-bit register; returns the vector under the mouse or -1.
int vector_grid(const char* title, const irqflow::replay::VectorSet& set, bool by_vector_colour) {
    ImGui::TextUnformatted(title);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float cell = 9;
    int hovered = -1;
    for (int v = 0; v < 256; ++v) {
        const ImVec2 a(p.x + static_cast<float>(v % 16) * cell, p.y + static_cast<float>(v / 16) * cell);
        const ImVec2 b(a.x + cell - 1, a.y + cell - 1);
        const std::uint32_t on = by_vector_colour ? irqflow::gui::vector_color(v) : 0xffe0e0e0;
        dl->AddRectFilled(a, b, set.test(v) ? on : 0xff3a3a3a);
        if (ImGui::IsMouseHoveringRect(a, b)) hovered = v;
    }
    ImGui::Dummy(ImVec2(16 * cell, 16 * cell));
    return hovered;
}

// The inspector: the hovered vCPU's modelled APIC at the cursor time.
void inspector(const irqflow::gui::Timeline& tl, const irqflow::gui::StateIndex& index, const irqflow::replay::ReplayResult& r,
               const irqflow::gui::Layout& layout, std::int64_t& shown_ts, int& shown_lane,
               std::vector<irqflow::replay::VcpuState>& states) {
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantCaptureMouse && io.MousePos.x > irqflow::gui::Layout::kGutter) {
        const int lane = static_cast<int>((io.MousePos.y - irqflow::gui::Layout::kTop) / irqflow::gui::Layout::kLaneHeight);
        if (lane >= 0 && lane < static_cast<int>(tl.lanes.size())) {
            const auto ts = layout.t0 + static_cast<std::int64_t>((io.MousePos.x - irqflow::gui::Layout::kGutter) /
                                                                 (layout.width - irqflow::gui::Layout::kGutter) *
                                                                 static_cast<float>(layout.t1 - layout.t0));
            if (ts != shown_ts || lane != shown_lane) {
                states = index.at(ts);
                shown_ts = ts;
                shown_lane = lane;
            }
        }
    }
    ImGui::SetNextWindowPos(ImVec2(10, io.DisplaySize.y - 420), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(470, 410), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Inspector (hover a lane)")) {
        ImGui::End();
        return;
    }
    if (shown_lane < 0 || static_cast<std::size_t>(shown_lane) >= states.size()) {
        ImGui::TextUnformatted("hover a vCPU lane to see its APIC at that time");
        ImGui::End();
        return;
    }
    const auto& s = states[static_cast<std::size_t>(shown_lane)];
    ImGui::Text("vm%d/vcpu%d (APIC %u) at %.9f s%s", s.vm.value(), s.vcpu.value(), s.apic.value(), static_cast<double>(shown_ts) / 1e9,
                s.synced ? "" : "  [state not proven yet]");
    ImGui::Text("TPR 0x%02x  PPR 0x%02x  deliverable %s  PV EOI %s%s", s.tpr, s.ppr(), s.deliverable() >= 0 ? "yes" : "no",
                s.pv_eoi_enabled ? "enabled" : "disabled", s.pv_eoi_armed ? ", armed" : "");
    ImGui::Columns(3, nullptr, false);
    const int irr = vector_grid("IRR", s.irr, false);
    ImGui::NextColumn();
    const int isr = vector_grid("ISR", s.isr, true);
    ImGui::NextColumn();
    const int tmr = vector_grid("TMR", s.tmr, false);
    ImGui::Columns(1);
    const int v = isr >= 0 ? isr : (irr >= 0 ? irr : tmr);
    if (v >= 0) {
        std::string where;
        if (isr >= 0 && s.isr.test(isr)) {  // who set it and who cleared it
            for (const auto& ir : r.interrupts)
                if (ir.vm == s.vm && ir.vcpu == s.vcpu && ir.vector == isr && ir.inject_ts <= shown_ts &&
                    (!ir.eoi_ts || ir.eoi_ts >= shown_ts)) {
                    char b[200];
                    std::snprintf(b, sizeof b, "\naccepted at record %llu, injected at record %llu, EOI %s%llu (%s)",
                                  static_cast<unsigned long long>(ir.accept_record), static_cast<unsigned long long>(ir.inject_record),
                                  ir.eoi_ts ? "at record " : "never", static_cast<unsigned long long>(ir.eoi_record),
                                  ir.eoi_path.empty() ? "-" : ir.eoi_path.c_str());
                    where = b;
                }
        }
        ImGui::SetTooltip("vector 0x%02x%s", v, where.c_str());
    }
    ImGui::End();
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--serial") o.serial = next();
        else if (a == "--screenshot") o.screenshot = next();
        else if (a == "--panels") o.panels = true;
        else if (a == "--bench-frames") o.bench_frames = std::atoi(next().c_str());
        else if (a == "--inspect") {
            double ts = 0;
            int lane = 0;
            if (std::sscanf(next().c_str(), "%lf:%d", &ts, &lane) != 2) return usage("--inspect wants SECONDS:LANE");
            o.inspect = {ts, lane};
            o.panels = true;
        }
        else if (a == "--range") {
            double x = 0, y = 0;
            if (std::sscanf(next().c_str(), "%lf:%lf", &x, &y) != 2 || y <= x) return usage("--range wants A:B seconds, A < B");
            o.range = {x, y};
        } else if (a == "--size") {
            if (std::sscanf(next().c_str(), "%dx%d", &o.width, &o.height) != 2 || o.width < 200) return usage("--size wants WxH");
        } else if (a.size() > 1 && a[0] == '-') return usage(("unknown option " + a).c_str());
        else o.trace = a;
    }
    if (o.trace.empty()) return usage("expects a TRACE");

    // Screenshots load first (deterministic); the interactive window opens at once and
    // loads on a background thread with a progress bar.
    std::atomic<int> stage{0};
    std::atomic<bool> loaded{false};
    std::unique_ptr<Session> S;
    std::string load_error;
    std::thread loader;
    auto load = [&] {
        try {
            S = load_session(o, stage);
        } catch (const std::exception& e) {
            load_error = e.what();
        }
        loaded = true;
    };
    if (!o.screenshot.empty() || o.bench_frames > 0) {
        load();
        if (!load_error.empty()) {
            std::fprintf(stderr, "irqflow-gui: %s\n", load_error.c_str());
            return 2;
        }
    } else {
        loader = std::thread(load);
    }
    std::int64_t t0 = 0, t1 = 1;
    std::int64_t shown_ts = -1;
    int shown_lane = -1;
    std::vector<irqflow::replay::VcpuState> states;
    bool view_set = false;
    auto set_view = [&] {  // once the session is there
        t0 = S->tl.t0;
        t1 = S->tl.t1;
        if (o.range) {
            t0 = static_cast<std::int64_t>(o.range->first * 1e9);
            t1 = static_cast<std::int64_t>(o.range->second * 1e9);
        }
        if (o.inspect) {
            shown_ts = static_cast<std::int64_t>(o.inspect->first * 1e9);
            shown_lane = o.inspect->second;
            states = S->index->at(shown_ts);
        }
        view_set = true;
    };
    if (o.height == 0)
        o.height = S ? static_cast<int>(irqflow::gui::Layout::kTop + irqflow::gui::Layout::kLaneHeight * static_cast<float>(S->tl.lanes.size()) + 40)
                     : 800;

    if (!glfwInit()) {
        std::fprintf(stderr, "irqflow-gui: cannot initialise GLFW (no display? run under xvfb-run)\n");
        if (loader.joinable()) loader.join();
        return 2;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_RESIZABLE, o.screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
    GLFWwindow* win = glfwCreateWindow(o.width, o.height, ("irqflow - " + o.trace).c_str(), nullptr, nullptr);
    if (!win) {
        std::fprintf(stderr, "irqflow-gui: cannot create an OpenGL 3.3 window\n");
        glfwTerminate();
        if (loader.joinable()) loader.join();
        return 2;
    }
    glfwMakeContextCurrent(win);
    glfwSwapInterval(o.bench_frames > 0 ? 0 : 1);
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(win, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    int frames = 0, rc = 0;
    std::vector<double> frame_ms;
    double drag_from = -1;
    while (!glfwWindowShouldClose(win)) {
        glfwPollEvents();
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        int fw = 0, fh = 0;
        glfwGetFramebufferSize(win, &fw, &fh);
        if (!view_set && loaded) {
            if (loader.joinable()) loader.join();
            if (!S) {
                std::fprintf(stderr, "irqflow-gui: %s\n", load_error.c_str());
                rc = 2;
                ImGui::EndFrame();
                break;
            }
            set_view();
        }
        if (!view_set) {
            loading_screen(o.trace, stage);
            render(fw, fh);
            glfwSwapBuffers(win);
            continue;
        }
        const irqflow::gui::Timeline& tl = S->tl;
        const irqflow::gui::Layout layout{static_cast<float>(fw), static_cast<float>(fh), t0, t1};
        // navigation: wheel zoom around the cursor, drag pan, keys
        ImGuiIO& io = ImGui::GetIO();
        const double span = static_cast<double>(t1 - t0);
        const double frac = std::clamp((io.MousePos.x - irqflow::gui::Layout::kGutter) / (layout.width - irqflow::gui::Layout::kGutter), 0.0f, 1.0f);
        auto zoom = [&](double factor, double at) {
            const double center = static_cast<double>(t0) + at * span;
            const double nspan = std::max(1000.0, span * factor);
            t0 = static_cast<std::int64_t>(center - at * nspan);
            t1 = static_cast<std::int64_t>(center + (1 - at) * nspan);
        };
        if (io.MouseWheel != 0 && !io.WantCaptureMouse) zoom(io.MouseWheel > 0 ? 0.8 : 1.25, frac);
        if (ImGui::IsMouseClicked(0) && !io.WantCaptureMouse) drag_from = io.MousePos.x;
        if (!ImGui::IsMouseDown(0)) drag_from = -1;
        if (ImGui::IsMouseDown(0) && drag_from >= 0) {
            const auto d = static_cast<std::int64_t>((io.MousePos.x - drag_from) / (layout.width - irqflow::gui::Layout::kGutter) * span);
            t0 -= d;
            t1 -= d;
            drag_from = io.MousePos.x;
        }
        // ImGui 1.86 indexes keys by the backend's (GLFW) key codes
        if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) zoom(0.5, 0.5);
        if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) zoom(2.0, 0.5);
        const auto step = static_cast<std::int64_t>(span / 10);
        if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) { t0 -= step; t1 -= step; }
        if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) { t0 += step; t1 += step; }
        if (ImGui::IsKeyPressed(GLFW_KEY_HOME) || ImGui::IsKeyPressed(GLFW_KEY_END)) { t0 = tl.t0; t1 = tl.t1; }

        irqflow::gui::draw_timeline(ImGui::GetBackgroundDrawList(), tl, layout, 0, 0);
        if (o.screenshot.empty() || o.panels) {
            panels(tl, S->replay, t0, t1);
            inspector(tl, *S->index, S->replay, layout, shown_ts, shown_lane, states);
        }
        render(fw, fh);
        if (o.bench_frames > 0) {  // zoom in and out around moving points, panning as it goes
            glFinish();
            static auto last = std::chrono::steady_clock::now();
            const auto now = std::chrono::steady_clock::now();
            if (frames > 2) frame_ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
            last = now;
            const double phase = static_cast<double>(frames % 120) / 120.0;
            const double scale = phase < 0.5 ? 1.0 - 1.9 * phase : 0.05 + 1.9 * (phase - 0.5);
            const double full = static_cast<double>(tl.t1 - tl.t0);
            const double centre = static_cast<double>(tl.t0) + full * (0.2 + 0.6 * static_cast<double>(frames % 97) / 97.0);
            t0 = static_cast<std::int64_t>(centre - full * scale / 2);
            t1 = static_cast<std::int64_t>(centre + full * scale / 2);
            if (++frames >= o.bench_frames + 3) {
                std::sort(frame_ms.begin(), frame_ms.end());
                double sum = 0;
                for (double f : frame_ms) sum += f;
                std::printf("irqflow-gui: %zu events, %zu frames at %dx%d: mean %.2f ms, p99 %.2f ms, max %.2f ms per frame\n",
                            S->trace.events.size(), frame_ms.size(), fw, fh, sum / static_cast<double>(frame_ms.size()),
                            frame_ms[frame_ms.size() * 99 / 100], frame_ms.back());
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
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(win);
    glfwTerminate();
    if (loader.joinable()) loader.join();  // closed while loading: the window is gone, finish quietly
    return rc;
}
