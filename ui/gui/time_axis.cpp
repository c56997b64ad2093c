#include "time_axis.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace irqflow::gui {
namespace {

struct Unit {
    std::int64_t ns;
    const char* name;
};
constexpr Unit kUnits[] = {{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "µs"}, {1, "ns"}};

// Floor division that also rounds negative values down.
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string seconds_text(std::int64_t ns, std::int64_t step_ns) {
    int decimals = 6;
    for (std::int64_t s = 1000; s > step_ns && decimals < 9; s /= 10) ++decimals;
    const bool negative = ns < 0;
    const std::uint64_t mag = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
    std::uint64_t frac = mag % 1'000'000'000;
    for (int d = 9; d > decimals; --d) frac /= 10;
    // built by hand: decimals is 6..9, but GCC at -O1 cannot see that and
    // rejects a %0*lu into a fixed buffer as a possible truncation
    std::string digits = std::to_string(frac);
    std::string out = negative ? "-" : "";
    out += std::to_string(mag / 1'000'000'000);
    out += '.';
    out.append(static_cast<std::size_t>(decimals) - std::min(digits.size(), static_cast<std::size_t>(decimals)), '0');
    out += digits;
    out += " s";
    return out;
}

TimeAxis time_axis(std::int64_t t0, std::int64_t t1, std::int64_t origin, float width_px, bool relative) {
    TimeAxis a;
    if (t1 <= t0 || width_px <= kMinTickPx) return a;
    const double ns_per_px = static_cast<double>(t1 - t0) / width_px;
    // the smallest 1/2/5 step at least kMinTickPx wide
    std::int64_t step = 1;
    for (std::int64_t decade = 1;; decade *= 10) {
        bool found = false;
        for (std::int64_t m : {1, 2, 5})
            if (static_cast<double>(m * decade) >= ns_per_px * kMinTickPx) {
                step = m * decade;
                found = true;
                break;
            }
        if (found || decade > INT64_MAX / 100) break;
    }
    a.step_ns = step;
    Unit unit = kUnits[3];
    for (const Unit& u : kUnits)
        if (step >= u.ns) {
            unit = u;
            break;
        }
    a.unit = unit.name;
    const std::int64_t zero = relative ? origin : 0;
    // Seconds count from zero itself; finer units from a base at a multiple of 1000 of
    // the unit before the view, so no label needs more than four digits.
    std::int64_t base = zero;
    if (unit.ns < kUnits[0].ns) base = zero + floor_div(t0 - zero, unit.ns * 1000) * unit.ns * 1000;
    if (base == zero) a.base = relative ? "from start" : "clock time";
    else a.base = (relative && base >= zero ? "+" : "") + seconds_text(base - zero, unit.ns);
    for (std::int64_t ts = zero + floor_div(t0 - zero + step - 1, step) * step; ts <= t1; ts += step) {
        const std::int64_t v = ts - base;
        char buf[48];
        if (unit.ns == kUnits[0].ns) {  // steps of whole seconds, counted from zero
            std::snprintf(buf, sizeof buf, "%" PRId64 " s", v / unit.ns);
        } else {
            std::snprintf(buf, sizeof buf, "+%" PRId64 " %s", v / unit.ns, unit.name);
        }
        a.ticks.push_back({ts, buf});
    }
    return a;
}

std::vector<std::optional<float>> tick_label_x(const std::vector<float>& tick_x, const std::vector<float>& width, float left, float right,
                                               const std::vector<Span>& taken) {
    constexpr float kGap = 3;  // between a tick and its label, and between two labels
    std::vector<std::optional<float>> out(tick_x.size());
    float free_from = left;  // where the last placed text ends
    for (std::size_t i = 0; i < tick_x.size() && i < width.size(); ++i) {
        float x = tick_x[i] + kGap;
        if (x + width[i] > right) x = tick_x[i] - kGap - width[i];
        if (x < free_from + kGap) continue;
        if (std::any_of(taken.begin(), taken.end(), [&](const Span& t) { return x < t.second + kGap && x + width[i] + kGap > t.first; })) continue;
        out[i] = x;
        free_from = x + width[i];
    }
    return out;
}

std::string duration_text(std::int64_t ns) {
    char b[48];
    const auto mag = ns < 0 ? -ns : ns;
    if (mag >= 1'000'000'000) std::snprintf(b, sizeof b, "%.3f s", static_cast<double>(ns) / 1e9);
    else if (mag >= 1'000'000) std::snprintf(b, sizeof b, "%.3f ms", static_cast<double>(ns) / 1e6);
    else if (mag >= 1'000) std::snprintf(b, sizeof b, "%.1f µs", static_cast<double>(ns) / 1e3);
    else std::snprintf(b, sizeof b, "%lld ns", static_cast<long long>(ns));
    return b;
}

}  // namespace irqflow::gui
