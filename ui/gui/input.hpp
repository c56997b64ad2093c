// The window's mouse and keys turned into view changes: wheel zoom around the cursor,
// drag pan, right-drag (or Shift+drag) box zoom, click to pin the inspector, Ctrl+click
// for markers A and B, keys.
#pragma once
#include "session.hpp"
#include "ui_state.hpp"

struct GLFWwindow;

namespace irqflow::gui {

class WindowInput {
public:
    // Installs GLFW callbacks that note activity and where buttons went down and up.
    // Call before ImGui's GLFW backend, which chains to callbacks installed before it.
    static void install(GLFWwindow* win);
    // Whether any input arrived since the last call (an idle window waits for input).
    static bool take_activity();
    // Applies this frame's input to the view; the timeline occupies `layout`.
    void frame(GLFWwindow* win, const Session& s, UiState& u, const Layout& layout);
    // The same zoom and pan over a loading trace's overview.
    void overview(GLFWwindow* win, Navigator& nav, const Layout& layout);

private:
    void pointer(Navigator& nav, const Layout& layout, bool& dragging, bool& clicked);
    static void view_keys(GLFWwindow* win, Navigator& nav);
    // Markers A and B: Ctrl+click / Ctrl+right-click, or A / B at the pointer; C clears.
    static void marker_keys(UiState& u, const Layout& layout);
    static void set_markers(UiState& u, bool over_plot, std::int64_t here);
    bool overview_dragging_ = false;
    float press_x_ = -1, last_x_ = 0;  // left button: where it went down, where it was last frame
    float box_from_ = -1;              // box zoom start
    int box_with_ = 1;                 // the button drawing the box
};

}  // namespace irqflow::gui
