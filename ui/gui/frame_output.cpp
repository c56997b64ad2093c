#include "frame_output.hpp"

#include <GL/gl.h>
#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <cstring>
#include <vector>

#include "timeline_model.hpp"

namespace irqflow::gui {

void render(int fw, int fh, ColumnImage& strips) {
    ImGui::Render();
    strips.upload();
    glViewport(0, 0, fw, fh);
    const auto channel = [](int shift) { return static_cast<float>((kBackground >> shift) & 0xff) / 255.0f; };
    glClearColor(channel(0), channel(8), channel(16), 1.0f);  // the timeline draws no background of its own
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

bool write_png(const std::string& path, int w, int h) {
    std::vector<unsigned char> px(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, px.data());
    std::vector<unsigned char> flipped(px.size());  // OpenGL rows go bottom-up
    const std::size_t row = static_cast<std::size_t>(w) * 3;
    for (int y = 0; y < h; ++y)
        std::memcpy(&flipped[static_cast<std::size_t>(y) * row], &px[static_cast<std::size_t>(h - 1 - y) * row], row);
    return stbi_write_png(path.c_str(), w, h, 3, flipped.data(), static_cast<int>(row)) != 0;
}

}  // namespace irqflow::gui
