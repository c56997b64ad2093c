// Where the serial row's texts go: each visible line gets the room up to the next line's
// tick, its text cut to fit with "..." (the tooltip shows it whole), and no text where
// there is not room for a few characters. No ImGui here: `char_width` is the font's.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "timeline_model.hpp"

namespace irqflow::gui {

struct SerialLabel {
    std::size_t line;  // index into Timeline::serial
    float x;           // the tick, from the plot's left edge as Layout::x
    std::string text;  // empty: the tick alone
};

inline constexpr std::size_t kMinSerialChars = 4;  // a label shorter than this says nothing: tick only

std::vector<SerialLabel> serial_labels(const std::vector<SerialMark>& serial, const Layout& layout, float char_width);

}  // namespace irqflow::gui
