// Adjacent pixel columns of one colour drawn as one rectangle (the timeline and the
// overview draw per pixel column).
#pragma once
#include <imgui.h>

#include <cstdint>

namespace irqflow::gui {

// Adjacent pixel columns of one colour become one rectangle: the picture is the same,
// and a software rasteriser gets a few long quads instead of one per column.
class ColumnRuns {
public:
    ColumnRuns(ImDrawList* dl, float y0, float y1) : dl_(dl), y0_(y0), y1_(y1) {}
    ~ColumnRuns() { flush(); }
    ColumnRuns(const ColumnRuns&) = delete;
    ColumnRuns& operator=(const ColumnRuns&) = delete;
    void put(float x, std::uint32_t colour) {
        if (open_ && colour == colour_ && x == end_) {
            end_ = x + 1;
            return;
        }
        flush();
        open_ = true;
        start_ = x;
        end_ = x + 1;
        colour_ = colour;
    }

private:
    void flush() {
        if (open_) dl_->AddRectFilled(ImVec2(start_, y0_), ImVec2(end_, y1_), colour_);
        open_ = false;
    }
    ImDrawList* dl_;
    float y0_, y1_, start_ = 0, end_ = 0;
    std::uint32_t colour_ = 0;
    bool open_ = false;
};

}  // namespace irqflow::gui
