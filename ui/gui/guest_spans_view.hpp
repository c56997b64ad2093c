// The guest's handler spans in a vCPU lane (guest_spans.hpp), drawn in the lane's guest
// row: each handler a bar in its vector's colour, named when wide enough; narrower than
// a pixel, one mark per column. Zoomed in until a span is a few pixels wide, a line runs
// from the host's injection marker down to the guest's handler entry.
#pragma once
#include "timeline_model.hpp"

struct ImDrawList;

namespace irqflow::gui {

class ColumnImage;

// `vector`: only that vector's spans (-1: all).
void draw_guest_spans(ImDrawList* dl, const Timeline& tl, const Lane& lane, const Layout& L, float ox, float oy, int row, int vector,
                      ColumnImage* strips);

}  // namespace irqflow::gui
