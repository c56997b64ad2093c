// Where the serial row's texts go: each visible line gets the room up to the next line's
// tick, its text cut to fit with "..." (the tooltip shows it whole), and no text where
// there is not room for a few characters. No ImGui here: `width` measures a text in the
// font it is drawn in, so what is drawn is what was measured and labels never overlap.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "timeline_model.hpp"

namespace irqflow::gui {

struct SerialLabel {
    std::size_t line;  // index into Timeline::serial
    float x;           // the tick, from the plot's left edge as Layout::x
    std::string text;  // empty: the tick alone
};

inline constexpr std::size_t kMinSerialChars = 4;  // a label shorter than this says nothing: tick only
inline constexpr float kSerialTextGap = 3;         // from a tick to its text, and from a text to the next tick

using TextWidth = std::function<float(std::string_view)>;

std::vector<SerialLabel> serial_labels(const std::vector<SerialMark>& serial, const Layout& layout, const TextWidth& width);

// A console line as the window shows it: escape sequences (the colours of a boot's
// "[  OK  ]") dropped, a tab as spaces to the next multiple of 8 columns, any other control
// character as '.'. The font would draw a tab four spaces wide and an escape as a box.
std::string display_text(std::string_view raw);

}  // namespace irqflow::gui
