// The time axis over the lanes: ticks at 1, 2 or 5 × 10^k ns, at least kMinTickPx apart,
// labelled in the unit of their step (s, ms, µs, ns) so the labels stay short at any
// zoom. No ImGui here: timeline_view.cpp draws it, tests call it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace irqflow::gui {

struct AxisTick {
    std::int64_t ts;
    std::string label;
};

struct TimeAxis {
    std::int64_t step_ns = 0;
    const char* unit = "s";  // the unit of the step: "s", "ms", "µs" or "ns"
    // Where the labels count from, for the gutter: with steps of seconds the zero itself
    // ("from start", or "clock time"); finer steps count from a round time before the
    // view, written in seconds ("+12.008000 s" after the start, or "12.008000 s" on the
    // clock), so a tick "+250 µs" is 250 µs after it.
    std::string base;
    std::vector<AxisTick> ticks;
};

inline constexpr float kMinTickPx = 80;

// The axis for the view [t0, t1] drawn `width_px` wide. `origin` is the trace start;
// `relative` counts from it, else from the clock's zero.
TimeAxis time_axis(std::int64_t t0, std::int64_t t1, std::int64_t origin, float width_px, bool relative);

// Where each tick's label starts, given the ticks' x and the labels' widths: right of its
// tick, or left of it where it would run past `right`; a label that would then touch the
// one before it, start before `left` (where the base's text ends) or cross a `taken` span
// of the axis row (markers A and B, their distance) gets no place (nullopt), so labels
// never overlap.
using Span = std::pair<float, float>;
std::vector<std::optional<float>> tick_label_x(const std::vector<float>& tick_x, const std::vector<float>& width, float left, float right,
                                               const std::vector<Span>& taken = {});

// "12.008250 s", the precision that `step_ns` needs (at least microseconds).
std::string seconds_text(std::int64_t ns, std::int64_t step_ns);

// A duration in the unit that keeps it short: "1.234 ms", "59.0 µs", "850 ns".
std::string duration_text(std::int64_t ns);

}  // namespace irqflow::gui
