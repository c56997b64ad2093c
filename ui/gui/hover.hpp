// What lies under the pointer on the timeline, as the lines of its tooltip: the state
// band, an exit, an ISR bar, an injection or EOI marker, an IPI, a finding or a serial
// line. No ImGui here: main.cpp shows the lines, tests ask for them at known pixels.
#pragma once
#include <string>
#include <vector>

#include "navigation_model.hpp"
#include "session.hpp"

namespace irqflow::gui {

// Pixels on either side of the pointer an item may be and still be under it.
inline constexpr float kHoverSlackPx = 3;

// The tooltip for the pointer at (x, y) in a timeline drawn with `layout` at (0, 0),
// showing `filter`'s lanes (`only`: the vector filter's layers, or null); empty when
// nothing is there.
std::vector<std::string> hover_lines(const Session& s, const Filter& filter, const VectorLayers* only, const Layout& layout, float x,
                                     float y);

}  // namespace irqflow::gui
