#include "frame_bench.hpp"

#include <GL/gl.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace irqflow::gui {

double FrameBench::since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void FrameBench::first_picture(const char* kind) {
    if (first_frame_s_ >= 0) return;
    first_frame_s_ = since_start();
    first_frame_kind_ = kind;
}

void FrameBench::overview_whole() {
    if (overview_s_ < 0) overview_s_ = since_start();
}

void FrameBench::timeline_shown() {
    if (details_s_ < 0) details_s_ = since_start();
    first_picture("timeline");
}

bool FrameBench::frame_done(int frame, const Timeline& tl, UiState& u, std::size_t events, int fw, int fh,
                            std::chrono::steady_clock::time_point draw_start, std::chrono::steady_clock::time_point draw_end) {
    glFinish();
    const auto now = std::chrono::steady_clock::now();
    if (frame > 2) {
        draw_ms_.push_back(std::chrono::duration<double, std::milli>(draw_end - draw_start).count());
        vertices_ += static_cast<std::uint64_t>(ImGui::GetDrawData()->TotalVtxCount);
        frame_ms_.push_back(std::chrono::duration<double, std::milli>(now - last_).count());
    }
    last_ = now;
    // zoom in and out around moving points, panning as it goes
    const double phase = static_cast<double>(frame % 120) / 120.0;
    const double scale = phase < 0.5 ? 1.0 - 1.9 * phase : 0.05 + 1.9 * (phase - 0.5);
    const double full = static_cast<double>(tl.t1 - tl.t0);
    const double centre = static_cast<double>(tl.t0) + full * (0.2 + 0.6 * static_cast<double>(frame % 97) / 97.0);
    u.nav.set(static_cast<std::int64_t>(centre - full * scale / 2), static_cast<std::int64_t>(centre + full * scale / 2));
    if (frame + 1 < frames_ + 3 || frame_ms_.empty()) return false;
    std::sort(frame_ms_.begin(), frame_ms_.end());
    double sum = 0, draw = 0;
    for (double f : frame_ms_) sum += f;
    for (double f : draw_ms_) draw += f;
    const double n = static_cast<double>(frame_ms_.size());
    std::printf("irqflow-gui: %zu events, %zu frames at %dx%d: mean %.2f ms, p99 %.2f ms, max %.2f ms per frame; "
                "building the draw lists %.2f ms, %.0f vertices per frame; first frame after %.2f s (%s), "
                "overview of the whole trace after %.2f s, the whole timeline after %.2f s\n",
                events, frame_ms_.size(), fw, fh, sum / n, frame_ms_[frame_ms_.size() * 99 / 100], frame_ms_.back(), draw / n,
                static_cast<double>(vertices_) / n, first_frame_s_, first_frame_kind_, overview_s_, details_s_);
    return true;
}

}  // namespace irqflow::gui
