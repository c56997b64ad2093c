// A frame's end: ImGui's draw lists (and the texture strips they show) into the back
// buffer, and the back buffer into a PNG (--screenshot, --screenshot-overview).
#pragma once
#include <string>

#include "column_image.hpp"

namespace irqflow::gui {

// Turns the frame's ImGui draw lists (and the strips they show) into pixels in the back buffer.
void render(int fw, int fh, ColumnImage& strips);

// The back buffer as an RGB PNG at `path`; false when it cannot be written.
bool write_png(const std::string& path, int w, int h);

}  // namespace irqflow::gui
