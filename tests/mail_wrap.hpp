// What mail clients and web forms do to a pasted trace, for tests that must read it
// back as if nothing happened: long lines broken at the last space before the column
// (the space dropped, or kept at the end as format=flowed does), hard-broken at the
// column inside a token, continued with an indent, broken right after the header's
// timestamp, or quoted in a reply and broken again without the quote marks.
#pragma once
#include <cstddef>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace irqflow::test {

enum class WrapStyle {
    AtSpace,     // the last space before the column becomes the line break
    Flowed,      // the same, the space kept at the end of the line (format=flowed)
    MidToken,    // broken at the column itself, inside whatever token stands there
    Indented,    // at a space, the continuation indented
    BeforeName,  // broken after the header's "ts:", then the rest at a space
    Quoted,      // "> " in front of every line, then broken at a space again
    Mixed,       // each line one of the above, at 72–80 columns
};
inline constexpr WrapStyle kWrapStyles[] = {WrapStyle::AtSpace,  WrapStyle::Flowed, WrapStyle::MidToken, WrapStyle::Indented,
                                            WrapStyle::BeforeName, WrapStyle::Quoted, WrapStyle::Mixed};
inline const char* to_string(WrapStyle s) {
    switch (s) {
    case WrapStyle::AtSpace: return "at-space";
    case WrapStyle::Flowed: return "flowed";
    case WrapStyle::MidToken: return "mid-token";
    case WrapStyle::Indented: return "indented";
    case WrapStyle::BeforeName: return "before-name";
    case WrapStyle::Quoted: return "quoted";
    case WrapStyle::Mixed: return "mixed";
    }
    return "?";
}

// One line broken at `width` columns (bytes: the traces are ASCII).
inline std::vector<std::string> wrap_line(std::string line, WrapStyle style, std::size_t width) {
    std::vector<std::string> out;
    if (style == WrapStyle::BeforeName) {  // "task [cpu] flags ts:" alone, the event on the next line
        const auto close = line.find("] ");
        const auto colon = close == std::string::npos ? std::string::npos : line.find(": ", close);
        if (colon != std::string::npos) {
            out.push_back(line.substr(0, colon + 1));
            line = line.substr(colon + 1);
        }
        style = WrapStyle::AtSpace;
    }
    while (line.size() > width) {
        if (style == WrapStyle::MidToken) {
            out.push_back(line.substr(0, width));
            line = line.substr(width);
            continue;
        }
        std::size_t cut = line.rfind(' ', width);
        while (cut != std::string::npos && cut > 0 && line.find_first_not_of(' ') > cut) cut = std::string::npos;  // not in the indent
        if (cut == std::string::npos || cut == 0) cut = line.find(' ', width);
        if (cut == std::string::npos) break;  // one long token: left long, as mail clients do
        std::string head = line.substr(0, cut), tail = line.substr(cut + 1);
        if (style == WrapStyle::Flowed) head += ' ';
        if (style == WrapStyle::Indented) tail = "    " + tail;
        out.push_back(head);
        line = tail;
    }
    out.push_back(line);
    return out;
}

// Every line of `text` longer than `width` broken in `style`.
inline std::string mail_wrap(const std::string& text, WrapStyle style, std::size_t width, unsigned seed = 1) {
    std::mt19937 rnd(seed);
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);) {
        WrapStyle s = style;
        std::size_t w = width;
        if (style == WrapStyle::Mixed) {
            s = kWrapStyles[rnd() % 6];
            w = 72 + rnd() % 9;
        }
        if (s == WrapStyle::Quoted) {  // the sender's client wrapped it, the replier's quotes and wraps again
            for (const auto& sent : wrap_line(line, WrapStyle::AtSpace, w))
                for (const auto& part : wrap_line("> " + sent, WrapStyle::AtSpace, w)) out += part + '\n';
            continue;
        }
        for (const auto& part : wrap_line(line, s, w)) out += part + '\n';
    }
    return out;
}

}  // namespace irqflow::test
