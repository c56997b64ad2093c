// Adjacent pixel columns of one colour drawn as one rectangle (the timeline and the
// overview draw per pixel column), or, given a ColumnImage, the whole strip as one
// textured quad.
#pragma once
#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "column_image.hpp"

namespace irqflow::gui {

// Adjacent pixel columns of one colour become one rectangle: the picture is the same,
// and a software rasteriser gets a few long quads instead of one per column. With an
// image (and a row free in it) the strip's columns go into a texture row instead and the
// strip is drawn as one quad, in the same place of the draw order.
class ColumnRuns {
public:
    ColumnRuns(ImDrawList* dl, float y0, float y1, ColumnImage* image = nullptr) : dl_(dl), image_(image), y0_(y0), y1_(y1) {
        if (image_) row_ = image_->take_row();
    }
    ~ColumnRuns() { flush(); }
    ColumnRuns(const ColumnRuns&) = delete;
    ColumnRuns& operator=(const ColumnRuns&) = delete;
    void put(float x, std::uint32_t colour) {
        if (row_) {
            const int c = static_cast<int>(x);
            if (c < 0 || c >= image_->width()) return;
            row_->px[c] = colour;
            lo_ = std::min(lo_, c);
            hi_ = std::max(hi_, c);
            return;
        }
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
        if (row_) {
            if (lo_ <= hi_) {
                const auto x0 = static_cast<float>(lo_), x1 = static_cast<float>(hi_ + 1);
                dl_->AddImage(image_->texture(), ImVec2(x0, y0_), ImVec2(x1, y1_), image_->uv(x0, row_->index), image_->uv(x1, row_->index + 1));
            }
            row_.reset();
            return;
        }
        if (open_) dl_->AddRectFilled(ImVec2(start_, y0_), ImVec2(end_, y1_), colour_);
        open_ = false;
    }
    ImDrawList* dl_;
    ColumnImage* image_;
    std::optional<ColumnImage::Row> row_;
    int lo_ = 1 << 30, hi_ = -1;
    float y0_, y1_, start_ = 0, end_ = 0;
    std::uint32_t colour_ = 0;
    bool open_ = false;
};

}  // namespace irqflow::gui
