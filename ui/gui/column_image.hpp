// The timeline's per-pixel-column strips (states, exit density, sub-pixel ISR bars,
// marker and IPI density) as rows of one texture instead of rectangles. Zoomed out on
// 100 M events neighbouring columns differ, so a strip became one rectangle per column:
// ~9 000 quads a frame, and llvmpipe's per-triangle cost took most of the frame budget.
// As texture rows each strip is one quad whatever it shows (ui/README.md, "Drawing").
#pragma once
#include <imgui.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace irqflow::gui {

class ColumnImage {
public:
    static constexpr int kRows = 256;  // strips per frame; more fall back to rectangles
    ColumnImage() = default;
    ~ColumnImage();
    ColumnImage(const ColumnImage&) = delete;
    ColumnImage& operator=(const ColumnImage&) = delete;

    // A frame `width` pixels wide starts: no rows taken yet.
    void begin(int width);
    struct Row {
        std::uint32_t* px;  // `width` colours (ImGui's packing), 0 = transparent
        int index;
    };
    // A cleared row, or none when all are taken.
    std::optional<Row> take_row();
    int width() const { return width_; }
    // Needs the GL context current (created on first use, re-created when the width changes).
    ImTextureID texture();
    // Texture coordinates of pixel column x at the top (bottom) of row r.
    ImVec2 uv(float x, int r) const { return {x / static_cast<float>(width_), static_cast<float>(r) / kRows}; }
    // This frame's rows into the texture; call before ImGui renders the draw lists.
    void upload();

private:
    std::vector<std::uint32_t> px_;
    int width_ = 0, rows_ = 0, texture_width_ = 0;
    unsigned texture_ = 0;
};

}  // namespace irqflow::gui
