#include "column_image.hpp"

#include <GL/gl.h>

#include <algorithm>
#include <cstdint>

namespace irqflow::gui {

ColumnImage::~ColumnImage() {
    if (texture_) glDeleteTextures(1, &texture_);
}

void ColumnImage::begin(int width) {
    width_ = std::max(1, width);
    rows_ = 0;
    px_.resize(static_cast<std::size_t>(width_) * kRows);
}

std::optional<ColumnImage::Row> ColumnImage::take_row() {
    if (rows_ >= kRows) return std::nullopt;
    std::uint32_t* px = px_.data() + static_cast<std::size_t>(rows_) * static_cast<std::size_t>(width_);
    std::fill(px, px + width_, 0u);
    return Row{px, rows_++};
}

ImTextureID ColumnImage::texture() {
    if (texture_ && texture_width_ != width_) {
        glDeleteTextures(1, &texture_);
        texture_ = 0;
    }
    if (!texture_) {
        GLint bound = 0;
        glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
        glGenTextures(1, &texture_);
        glBindTexture(GL_TEXTURE_2D, texture_);
        // nearest: every screen pixel shows exactly its column's colour, as a rectangle did
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width_, kRows, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
        texture_width_ = width_;
    }
    return reinterpret_cast<ImTextureID>(static_cast<std::uintptr_t>(texture_));
}

void ColumnImage::upload() {
    if (!texture_ || rows_ == 0) return;
    GLint bound = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    glBindTexture(GL_TEXTURE_2D, texture_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    // ImGui packs a colour as R in the low byte: in memory that is RGBA
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, rows_, GL_RGBA, GL_UNSIGNED_BYTE, px_.data());
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(bound));
}

}  // namespace irqflow::gui
