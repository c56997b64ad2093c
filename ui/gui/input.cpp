#include "input.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "panels_view.hpp"

namespace irqflow::gui {
namespace {

// Set by any input callback. An idle window waits for input instead of redrawing: with
// no vsync (Xvfb, some drivers) the loop would otherwise spin a core at 100 %.
bool g_activity = true;
// Where each button went down and came up, as the events had it: a frame may see a
// press, moves and the release at once (a fast flick, a busy machine), and a box or a
// pan must run from where the press was to where the release was. (glfwGetCursorPos
// would not do: it asks the X server where the pointer is now.)
float g_pointer_x = -1;
float g_press_x[3] = {-1, -1, -1}, g_release_x[3] = {-1, -1, -1};

void on_key(GLFWwindow*, int, int, int, int) { g_activity = true; }
void on_char(GLFWwindow*, unsigned int) { g_activity = true; }
void on_size(GLFWwindow*, int, int) { g_activity = true; }
void on_scroll(GLFWwindow*, double, double) { g_activity = true; }
void on_motion(GLFWwindow*, double x, double) {
    g_activity = true;
    g_pointer_x = static_cast<float>(x);
}
void on_button(GLFWwindow*, int button, int action, int) {
    g_activity = true;
    if (button < 0 || button >= 3) return;
    if (action == GLFW_PRESS) {
        g_press_x[button] = g_pointer_x;
        g_release_x[button] = -1;
    } else {
        g_release_x[button] = g_pointer_x;
    }
}

// Where a button went down or up, or the pointer now when no motion was seen yet.
float or_now(float x) { return x >= 0 ? x : ImGui::GetIO().MousePos.x; }

}  // namespace

void WindowInput::install(GLFWwindow* win) {
    glfwSetKeyCallback(win, on_key);
    glfwSetCharCallback(win, on_char);
    glfwSetFramebufferSizeCallback(win, on_size);
    glfwSetScrollCallback(win, on_scroll);
    glfwSetCursorPosCallback(win, on_motion);
    glfwSetMouseButtonCallback(win, on_button);
}

bool WindowInput::take_activity() {
    const bool a = g_activity;
    g_activity = false;
    return a;
}

void WindowInput::pointer(Navigator& nav, const Layout& layout, bool& dragging, bool& clicked) {
    ImGuiIO& io = ImGui::GetIO();
    const float plot_w = layout.width - Layout::kGutter;
    auto frac = [&](float x) { return static_cast<double>((x - Layout::kGutter) / plot_w); };
    const bool over_plot = !io.WantCaptureMouse && io.MousePos.y < layout.height;
    clicked = false;
    if (io.MouseWheel != 0 && over_plot) nav.zoom(io.MouseWheel > 0 ? 0.8 : 1.25, std::clamp(frac(io.MousePos.x), 0.0, 1.0));
    const bool box_button = ImGui::IsMouseClicked(1) || (ImGui::IsMouseClicked(0) && io.KeyShift);
    if (io.KeyCtrl) {
        // Ctrl+click places a marker (WindowInput::frame), it neither pans nor zooms
    } else if (box_button && over_plot) {
        box_with_ = ImGui::IsMouseClicked(1) ? 1 : 0;
        box_from_ = or_now(g_press_x[box_with_]);
    } else if (ImGui::IsMouseClicked(0) && over_plot) {
        press_x_ = last_x_ = or_now(g_press_x[0]);
    }
    if (box_from_ >= 0) {
        ImGui::GetForegroundDrawList()->AddRectFilled(ImVec2(std::min(box_from_, io.MousePos.x), Layout::kTop),
                                                      ImVec2(std::max(box_from_, io.MousePos.x), layout.height), 0x40ffffff);
        if (!ImGui::IsMouseDown(1) && !ImGui::IsMouseDown(0)) {
            nav.box(frac(box_from_), frac(or_now(g_release_x[box_with_])));
            box_from_ = -1;
        }
    } else if (press_x_ >= 0) {
        const bool down = ImGui::IsMouseDown(0);
        const float x = down ? io.MousePos.x : or_now(g_release_x[0]);  // released: the pan ends where the button came up
        dragging = dragging || std::abs(x - press_x_) > 3;
        if (dragging) nav.pan(-static_cast<double>(x - last_x_) / plot_w);
        last_x_ = x;
        if (!down) {
            clicked = !dragging;
            dragging = false;
            press_x_ = -1;
        }
    }
}

void WindowInput::view_keys(GLFWwindow* win, Navigator& nav) {
    // ImGui 1.86 indexes keys by the backend's (GLFW) key codes
    if (ImGui::IsKeyPressed(GLFW_KEY_EQUAL) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD)) nav.zoom(0.5, 0.5);
    if (ImGui::IsKeyPressed(GLFW_KEY_MINUS) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT)) nav.zoom(2.0, 0.5);
    if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) nav.pan(-0.1);
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) nav.pan(0.1);
    if (ImGui::IsKeyPressed(GLFW_KEY_HOME)) nav.to_start();
    if (ImGui::IsKeyPressed(GLFW_KEY_END)) nav.to_end();
    if (ImGui::IsKeyPressed(GLFW_KEY_W)) nav.whole();
    if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q)) glfwSetWindowShouldClose(win, GLFW_TRUE);
}

void WindowInput::marker_keys(UiState& u, const Layout& layout) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool over_plot = !io.WantCaptureMouse && io.MousePos.y < layout.height && io.MousePos.x >= Layout::kGutter && io.MousePos.x <= layout.width;
    // at the pointer when it is over the plot, else at the pinned cursor
    const std::int64_t here = over_plot ? layout.time_at(io.MousePos.x) : u.pinned ? u.shown_ts : -1;
    const auto before = std::pair{u.mark_a, u.mark_b};
    set_markers(u, over_plot, here);
    if (std::pair{u.mark_a, u.mark_b} != before && u.mark_a >= 0 && u.mark_b >= 0) u.open_tab = "selection";  // what lies between them
}

void WindowInput::set_markers(UiState& u, bool over_plot, std::int64_t here) {
    const ImGuiIO& io = ImGui::GetIO();
    if (over_plot && io.KeyCtrl && ImGui::IsMouseClicked(0)) u.mark_a = here;
    if (over_plot && io.KeyCtrl && ImGui::IsMouseClicked(1)) u.mark_b = here;
    if (io.WantTextInput || io.KeyCtrl) return;  // Ctrl+click works while a text box has the keyboard
    if (ImGui::IsKeyPressed(GLFW_KEY_A) && here >= 0) u.mark_a = here;
    if (ImGui::IsKeyPressed(GLFW_KEY_B) && here >= 0) u.mark_b = here;
    if (ImGui::IsKeyPressed(GLFW_KEY_C)) u.mark_a = u.mark_b = -1;
}

void WindowInput::frame(GLFWwindow* win, const Session& s, UiState& u, const Layout& layout) {
    pointer(u.nav, layout, u.dragging, u.clicked);
    marker_keys(u, layout);
    if (ImGui::GetIO().WantTextInput) return;
    view_keys(win, u.nav);
    if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE)) u.pinned = false;
    if (ImGui::IsKeyPressed(GLFW_KEY_T)) u.absolute_time = !u.absolute_time;
    if (ImGui::IsKeyPressed(GLFW_KEY_L)) u.show_legend = !u.show_legend;
    if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_G)) u.focus_goto = true;
    if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_F)) u.focus_search = true;
    // '?' is Shift+/ on most layouts; F1 everywhere
    if (ImGui::IsKeyPressed(GLFW_KEY_F1) || (ImGui::GetIO().KeyShift && ImGui::IsKeyPressed(GLFW_KEY_SLASH))) u.show_keys = !u.show_keys;
    jump_keys(s, u);
}

void WindowInput::overview(GLFWwindow* win, Navigator& nav, const Layout& layout) {
    bool clicked = false;
    pointer(nav, layout, overview_dragging_, clicked);
    view_keys(win, nav);
}

}  // namespace irqflow::gui
