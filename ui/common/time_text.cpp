#include "time_text.hpp"

#include <charconv>
#include <cmath>

namespace irqflow::ui {

std::optional<std::int64_t> parse_time(std::string_view s, std::int64_t start) {
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    const bool relative = !s.empty() && s.front() == '+';
    if (relative) s.remove_prefix(1);
    double scale = 1e9;
    for (auto [suffix, mult] : {std::pair{"ns", 1.0}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}})
        if (s.size() > std::string_view(suffix).size() && s.ends_with(suffix)) {
            scale = mult;
            s.remove_suffix(std::string_view(suffix).size());
            break;
        }
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v) || std::fabs(v * scale) > 9.2e18) return std::nullopt;
    if (relative && v < 0) return std::nullopt;  // "+-1s" is no time after the start
    return (relative ? start : 0) + static_cast<std::int64_t>(std::llround(v * scale));
}

std::optional<std::pair<std::int64_t, std::int64_t>> parse_time_range(std::string_view text, std::int64_t start) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const auto a = parse_time(text.substr(0, colon), start), b = parse_time(text.substr(colon + 1), start);
    if (!a || !b || *a >= *b) return std::nullopt;
    return std::pair{*a, *b};
}

}  // namespace irqflow::ui
