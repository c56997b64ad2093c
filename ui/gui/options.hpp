// irqflow-gui's command line: what it parses, and what the options do to the view once
// the session is there. `irqflow-gui --help` lists them.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "session.hpp"
#include "ui_state.hpp"

namespace irqflow::gui {

struct Options {
    SessionSource src;
    std::string screenshot, vcpus, vector, go_to, tab, search;
    std::string overview_shot;  // the overview shown while loading, once all of it is read, to PNG
    bool panels = false;  // also draw the panels into a screenshot
    bool print_view = false;  // print the view and the inspector's pin whenever they change (input tests)
    bool legend = false, keys = false, absolute_time = true;  // the key of colours, the key overlay, clock time on the axis
    std::optional<std::pair<double, double>> hover;  // --screenshot: the tooltip of the item at this pixel
    std::optional<std::pair<double, int>> inspect;  // inspector preset: time (s) and lane
    int bench_frames = 0;  // render this many frames while zooming and panning, print frame times
    std::string range;  // --range as typed: resolved once the trace (its start) is known
    std::optional<std::pair<double, double>> marks;  // markers A and B, seconds
    std::vector<std::string> compare;  // --compare A B: two runs, A's timeline above B's
    std::vector<std::string> align;    // --align A B: the event or time of each run to line up
    int width = 1400, height = 0;  // height 0: fit the lanes (and the panels)
};

// The window's parts: the panels' height under the timeline, the inspector's width.
constexpr float kPanelsHeight = 340, kInspectorWidth = 500;

// Fills `o` from the command line; an exit status when the program should stop (help,
// version, a usage error: 64).
std::optional<int> parse_args(int argc, char** argv, Options& o);

// The view, filter and inspector the options ask for, once the session is there.
// false (after saying why on stderr) when a value cannot be right for this trace.
bool apply_options(const Options& o, const Session& s, UiState& u);

}  // namespace irqflow::gui
