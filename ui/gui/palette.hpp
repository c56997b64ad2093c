// Colours a person can tell apart: the exit-reason ticks get colours chosen for
// distance in CIELAB (what the eye sees as different), not spread over a hue circle
// whose neighbours dimmed to near-identical purples. ΔE is CIE76 (Euclidean in L*a*b*);
// 10 or more reads as "another colour" at a glance (ui/gui/README.md, "Colours").
#pragma once
#include <cstdint>
#include <vector>

namespace irqflow::gui {

struct Lab {
    double l, a, b;
};

// An ImGui colour (0xAABBGGRR, sRGB) in CIELAB (D65).
Lab lab_of(std::uint32_t abgr);
double delta_e(std::uint32_t x, std::uint32_t y);

// `n` opaque colours, each chosen in turn as the candidate farthest (the largest least
// ΔE) from those before it and from `avoid` (the lane's background); bright enough to
// show on the dark lanes. The same `n` and `avoid` give the same colours in the same order.
std::vector<std::uint32_t> distinct_colours(std::size_t n, const std::vector<std::uint32_t>& avoid);

// The least ΔE between any two of `colours` (infinity for fewer than two).
double min_delta_e(const std::vector<std::uint32_t>& colours);

}  // namespace irqflow::gui
