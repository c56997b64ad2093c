#include "palette.hpp"

#include <cmath>
#include <limits>

namespace irqflow::gui {
namespace {

double linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }
double lab_f(double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }

std::uint32_t from_hsv(double h, double s, double v) {
    const double c = v * s, x = c * (1 - std::fabs(std::fmod(h * 6, 2.0) - 1)), m = v - c;
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(h * 6) % 6) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
    }
    auto q = [m](double u) { return static_cast<std::uint32_t>(std::lround((u + m) * 255.0)); };
    return 0xff000000u | (q(b) << 16) | (q(g) << 8) | q(r);
}

// The candidates: 48 hues × 3 saturations × 3 values, lighter than the lanes' dark
// grey by enough to read (L* ≥ 45).
const std::vector<std::uint32_t>& candidates() {
    static const std::vector<std::uint32_t> c = [] {
        std::vector<std::uint32_t> out;
        for (int h = 0; h < 48; ++h)
            for (double s : {0.35, 0.65, 0.95})
                for (double v : {0.65, 0.82, 1.0})
                    if (const auto rgb = from_hsv(h / 48.0, s, v); lab_of(rgb).l >= 45) out.push_back(rgb);
        return out;
    }();
    return c;
}

}  // namespace

Lab lab_of(std::uint32_t abgr) {
    const double r = linear((abgr & 0xff) / 255.0), g = linear(((abgr >> 8) & 0xff) / 255.0), b = linear(((abgr >> 16) & 0xff) / 255.0);
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    const double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

double delta_e(std::uint32_t x, std::uint32_t y) {
    const Lab p = lab_of(x), q = lab_of(y);
    return std::sqrt((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) + (p.b - q.b) * (p.b - q.b));
}

std::vector<std::uint32_t> distinct_colours(std::size_t n, const std::vector<std::uint32_t>& avoid) {
    const auto& cand = candidates();
    std::vector<double> nearest(cand.size(), std::numeric_limits<double>::infinity());  // each candidate's least ΔE to those taken
    auto took = [&](std::uint32_t c) {
        for (std::size_t i = 0; i < cand.size(); ++i) nearest[i] = std::min(nearest[i], delta_e(cand[i], c));
    };
    for (const auto c : avoid) took(c);
    std::vector<std::uint32_t> out;
    while (out.size() < n) {
        std::size_t best = 0;
        for (std::size_t i = 1; i < cand.size(); ++i)
            if (nearest[i] > nearest[best]) best = i;
        out.push_back(cand[best]);
        took(cand[best]);
    }
    return out;
}

double min_delta_e(const std::vector<std::uint32_t>& colours) {
    double m = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < colours.size(); ++i)
        for (std::size_t j = i + 1; j < colours.size(); ++j) m = std::min(m, delta_e(colours[i], colours[j]));
    return m;
}

}  // namespace irqflow::gui
