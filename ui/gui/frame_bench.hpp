// --bench-frames N: when the first picture came (the overview while loading, or the
// timeline), when the overview held the whole trace and when the full timeline was
// there; then N frames rendered while zooming 5 % ↔ 100 % and panning, their times and
// vertices, printed as one line (tests/bench/bench_gui.sh reads it).
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

#include "timeline_model.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

class FrameBench {
public:
    explicit FrameBench(int frames) : frames_(frames) {}
    bool on() const { return frames_ > 0; }

    // Load milestones, each kept the first time it is reported.
    void first_picture(const char* kind);
    void overview_whole();
    void timeline_shown();

    // After a rendered frame (`frame` counts from 0; the first ones settle the layout):
    // records its time and vertices, moves the view for the next one; true once all N
    // are done and the line printed.
    bool frame_done(int frame, const Timeline& tl, UiState& u, std::size_t events, int fw, int fh,
                    std::chrono::steady_clock::time_point draw_start, std::chrono::steady_clock::time_point draw_end);

private:
    double since_start() const;

    int frames_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now(), last_ = started_;
    double first_frame_s_ = -1, overview_s_ = -1, details_s_ = -1;
    const char* first_frame_kind_ = "";
    std::vector<double> frame_ms_, draw_ms_;  // whole frame; building our draw lists
    std::uint64_t vertices_ = 0;
};

}  // namespace irqflow::gui
