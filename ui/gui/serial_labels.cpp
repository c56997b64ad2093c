#include "serial_labels.hpp"

#include <algorithm>

namespace irqflow::gui {
namespace {

bool continues_utf8(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

// The longest start of `text` that, with "...", is at most `room` wide, cut between
// characters (never inside a UTF-8 sequence); empty when fewer than kMinSerialChars fit.
std::string cut_to(const std::string& text, float room, const TextWidth& width) {
    std::size_t lo = 0, hi = text.size();  // the answer's length lies in [lo, hi)
    while (lo + 1 < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (width(text.substr(0, mid) + "...") <= room) lo = mid;
        else hi = mid;
    }
    while (lo > 0 && lo < text.size() && continues_utf8(text[lo])) --lo;
    if (lo < kMinSerialChars) return {};
    return text.substr(0, lo) + "...";
}

}  // namespace

std::string display_text(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const auto c = static_cast<unsigned char>(raw[i]);
        if (c == 0x1b) {  // ESC [ parameters final-byte (CSI), or ESC and one more character
            if (i + 1 < raw.size() && raw[i + 1] == '[') {
                i += 2;
                while (i < raw.size() && !(raw[i] >= 0x40 && raw[i] <= 0x7e)) ++i;
            } else {
                ++i;
            }
            continue;
        }
        if (c == '\t') out.append(8 - out.size() % 8, ' ');
        else if (c < 0x20 || c == 0x7f) out += '.';
        else out += static_cast<char>(c);
    }
    return out;
}

std::vector<SerialLabel> serial_labels(const std::vector<SerialMark>& serial, const Layout& L, const TextWidth& width) {
    std::vector<SerialLabel> out;
    auto it = std::lower_bound(serial.begin(), serial.end(), L.t0, [](const SerialMark& m, std::int64_t t) { return m.ts < t; });
    for (; it != serial.end() && it->ts <= L.t1; ++it) out.push_back({static_cast<std::size_t>(it - serial.begin()), L.x(it->ts), {}});
    for (std::size_t i = 0; i < out.size(); ++i) {
        // from just right of this tick to just left of the next one (or the plot's edge)
        const float room = (i + 1 < out.size() ? out[i + 1].x : L.width) - out[i].x - 2 * kSerialTextGap;
        if (room <= 0) continue;
        std::string text = display_text(serial[out[i].line].text);
        if (width(text) <= room) out[i].text = std::move(text);
        else out[i].text = cut_to(text, room, width);
    }
    return out;
}

}  // namespace irqflow::gui
