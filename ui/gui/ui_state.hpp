// The window's state between frames: where the view is, the filter, the inspector's
// pick and what the panels cache. The panels read and change it; main.cpp owns it.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "events_model.hpp"
#include "latency_model.hpp"
#include "legend.hpp"
#include "navigation_model.hpp"
#include "selection_model.hpp"
#include "session.hpp"

namespace irqflow::gui {

struct UiState {
    explicit UiState(const Session& s)
        : nav(s.tl.t0, s.tl.t1), filter(Filter::all(s.tl)), lanes(s.tl) {}
    Navigator nav;
    Filter filter;
    std::optional<VectorLayers> only;  // built for filter.vector
    LaneLookup lanes;
    // go to time / record
    char goto_text[64] = "";
    std::string goto_error;
    char vector_text[16] = "";
    // inspector: the vCPU lane and time it shows; a clicked ISR bit stays explained
    std::int64_t shown_ts = -1;
    int shown_lane = -1;
    bool pinned = false;  // a click on a lane fixes the inspector there (Esc lets it follow the mouse again)
    bool absolute_time = true;  // the axis counts trace-clock time instead of time since the start (T)
    bool show_keys = false;      // the key overlay (? / F1)
    bool show_legend = false;    // the key of colours (L)
    std::vector<LegendGroup> legend;  // built the first time it is shown
    std::vector<replay::VcpuState> states;
    int pinned_vector = -1;
    // the event a go-to landed on (index into trace.events): the events tab selects its
    // row, and scrolls to it once
    std::optional<std::size_t> selected_event;
    bool scroll_to_selected = false;
    bool focus_goto = false;
    // search (search_model.hpp): the box, the query its matches are for, and the match gone to
    char search_text[128] = "";
    std::string search_error, searched;
    EventRows matches;  // as the events tab lists them
    std::optional<std::size_t> match;  // row in `matches`
    bool focus_search = false;  // Ctrl+F
    // markers A and B (-1: not set); the selection tab shows what lies between them,
    // recomputed when they or the filter change
    std::int64_t mark_a = -1, mark_b = -1;
    std::optional<RangeStats> selection;
    Filter selection_filter;  // Ctrl+G: the go-to box takes the keyboard next frame
    // --print-view: what input did, for tests that drive the window
    bool print_view = false, printed_grid = false;
    int printed_pin = -1;
    std::size_t printed_selected = SIZE_MAX;
    std::set<std::size_t> printed_diagnosis;  // findings whose diagnosis row was printed
    // event table and histograms, recomputed when the view or the filter changes
    EventRows rows;
    ViewRange rows_view{-1, -1};
    Filter rows_filter;
    std::optional<std::pair<LatencyHistogram, LatencyHistogram>> latency;  // accept→inject, inject→EOI
    bool dragging = false;  // the left button is held and has moved (a pan), or a box is being drawn
    bool clicked = false;   // this frame: the left button went up without moving
    std::string open_tab;   // select this panel tab ("findings", "statistics", "latency", "events") next frame
    std::string panel_tip;  // this frame's tooltip in a panel (a histogram bar's count), for --print-view
    std::set<std::string> printed_histograms;  // --print-view: histograms whose place was printed

    // Applies a new vector filter (-1: all) and rebuilds what depends on it.
    void set_vector(const Timeline& tl, int vector) {
        filter.vector = vector;
        only.reset();
        if (vector >= 0) only = only_vector(tl, vector);
        latency.reset();
    }
    void set_lane_shown(int lane, bool shown) {
        filter.lane_shown[static_cast<std::size_t>(lane)] = shown;
        latency.reset();
    }
};

}  // namespace irqflow::gui
