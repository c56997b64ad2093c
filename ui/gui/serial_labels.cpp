#include "serial_labels.hpp"

#include <algorithm>

namespace irqflow::gui {

std::vector<SerialLabel> serial_labels(const std::vector<SerialMark>& serial, const Layout& L, float char_width) {
    std::vector<SerialLabel> out;
    auto it = std::lower_bound(serial.begin(), serial.end(), L.t0, [](const SerialMark& m, std::int64_t t) { return m.ts < t; });
    for (; it != serial.end() && it->ts <= L.t1; ++it) out.push_back({static_cast<std::size_t>(it - serial.begin()), L.x(it->ts), {}});
    for (std::size_t i = 0; i < out.size(); ++i) {
        // from just right of this tick to just left of the next one (or the plot's edge)
        const float room = (i + 1 < out.size() ? out[i + 1].x : L.width) - out[i].x - 6;
        const auto fits = static_cast<std::size_t>(std::max(0.0f, room / char_width));
        const std::string& text = serial[out[i].line].text;
        if (text.size() <= fits) out[i].text = text;
        else if (fits >= kMinSerialChars + 3) out[i].text = text.substr(0, fits - 3) + "...";
    }
    return out;
}

}  // namespace irqflow::gui
