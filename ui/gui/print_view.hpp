// --print-view: what input did to the window, one line per change on stdout (view,
// axis labels, markers, the inspector's pin, the tooltip), for the tests that drive the
// real window with xdotool (tests/test_gui.cpp) and read back what it shows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timeline_model.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

class ViewPrinter {
public:
    // The single timeline's view, the lanes' right edge, axis, markers and pin.
    void timeline(const UiState& u, const Layout& layout, const Timeline& tl);
    // --compare: the shared view and B's shift against A.
    void compare(const UiState& u, std::int64_t shift);
    // The first line of the tooltip, when it changes to a new one.
    void hover(const std::vector<std::string>& tip);
    // A panel's tooltip (UiState::panel_tip), when it changes to a new one.
    void panel_tip(const std::string& tip);

private:
    ViewRange view_{-1, -1};
    float lanes_right_ = -1;
    std::int64_t shift_ = 0;
    std::string axis_, hover_, panel_tip_;
    std::pair<std::int64_t, std::int64_t> marks_{-1, -1};
    std::pair<int, std::int64_t> pin_{-1, -1};
};

}  // namespace irqflow::gui
