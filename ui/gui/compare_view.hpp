// irqflow-gui --compare A B: A's timeline above B's, zoom and pan locked (B's view is A's
// shifted by the alignment), and a panel with the diff table (compare_model.hpp); a click
// on a row aligns the two timelines at an example of it in each run.
#pragma once
#include <cstdint>
#include <vector>

#include "compare_model.hpp"
#include "session.hpp"
#include "ui_state.hpp"

struct ImDrawList;

namespace irqflow::gui {

class ColumnImage;

struct CompareState {
    explicit CompareState(const Session& a, const Session& b_)
        : b(b_), rows(diff_rows(a, b_)), shift(b_.tl.t0 - a.tl.t0), filter_b(Filter::all(b_.tl)) {}
    const Session& b;
    std::vector<ui::DiffRow> rows;
    std::int64_t shift;  // B's time = A's time + shift: aligned at the starts, or at a row's examples
    Filter filter_b;
    int selected = -1;
    bool printed_rows = false;  // --print-view: the rows' rectangles, once laid out
};

// The height one run's timeline takes.
float compare_plot_height(const Session& s, const Filter& f);

// Both timelines, A's from y 0 (the view u.nav) and B's below it (shifted).
void draw_compare(ImDrawList* dl, const Session& a, const UiState& u, const CompareState& c, float width, ColumnImage* strips);

// The diff table in the rectangle given.
void compare_panel(const Session& a, UiState& u, CompareState& c, float x, float y, float w, float h);

}  // namespace irqflow::gui
