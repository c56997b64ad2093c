#include "significance.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>

namespace irqflow::ui {
namespace {

constexpr double kZ1pct = 2.5758293035489;  // the normal's two-sided 1 % point

double mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double variance(const std::vector<double>& v, double m) {
    if (v.size() < 2) return 0;
    double s = 0;
    for (double x : v) s += (x - m) * (x - m);
    return s / static_cast<double>(v.size() - 1);
}

}  // namespace

double t_critical_1pct(double df) {
    // two-sided 1 % points of Student's t (0.995 quantiles)
    static constexpr std::pair<double, double> kTable[] = {
        {1, 63.657}, {2, 9.925}, {3, 5.841}, {4, 4.604}, {5, 4.032}, {6, 3.707}, {7, 3.499}, {8, 3.355},
        {9, 3.250},  {10, 3.169}, {12, 3.055}, {15, 2.947}, {20, 2.845}, {30, 2.750}, {60, 2.660}, {120, 2.617}};
    if (df <= 1) return kTable[0].second;
    for (std::size_t i = 1; i < std::size(kTable); ++i)
        if (df <= kTable[i].first) {
            const auto [d0, t0] = kTable[i - 1];
            const auto [d1, t1] = kTable[i];
            const double f = (1 / df - 1 / d0) / (1 / d1 - 1 / d0);
            return t0 + f * (t1 - t0);
        }
    const auto [d0, t0] = kTable[std::size(kTable) - 1];
    return kZ1pct + (t0 - kZ1pct) * d0 / df;  // towards the normal as 1/df → 0
}

TestResult welch_moments(double ma, double va, double na, double mb, double vb, double nb) {
    TestResult r;
    r.test = "welch-t";
    if (na < 2 || nb < 2) return r;  // no spread to judge by: never significant
    const double sa = va / na, sb = vb / nb, se2 = sa + sb;
    if (se2 <= 0) {  // both sides constant: different constants differ
        r.significant = ma != mb;
        r.statistic = ma == mb ? 0 : (mb > ma ? INFINITY : -INFINITY);
        return r;
    }
    r.statistic = (mb - ma) / std::sqrt(se2);
    const double df = se2 * se2 / ((sa * sa) / (na - 1) + (sb * sb) / (nb - 1));
    r.significant = std::abs(r.statistic) > t_critical_1pct(df);
    return r;
}

TestResult welch(const std::vector<double>& a, const std::vector<double>& b) {
    const double ma = mean(a), mb = mean(b);
    return welch_moments(ma, variance(a, ma), static_cast<double>(a.size()), mb, variance(b, mb), static_cast<double>(b.size()));
}

namespace {

std::int64_t quantile_of(std::vector<std::int64_t>& v, double q) {
    const std::size_t k = std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));  // the replay's rank
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

}  // namespace

TestResult bootstrap_percentile(const std::vector<std::vector<std::int64_t>>& a_blocks, const std::vector<std::vector<std::int64_t>>& b_blocks,
                                double q, int resamples) {
    TestResult r;
    r.test = "block bootstrap";
    std::vector<const std::vector<std::int64_t>*> a, b;
    for (const auto& x : a_blocks)
        if (!x.empty()) a.push_back(&x);
    for (const auto& x : b_blocks)
        if (!x.empty()) b.push_back(&x);
    if (a.size() < 2 || b.size() < 2) {  // one block: nothing to resample
        r.test = "";
        return r;
    }
    auto pooled = [](const std::vector<const std::vector<std::int64_t>*>& blocks, std::mt19937_64* rng) {
        std::vector<std::int64_t> out;
        std::uniform_int_distribution<std::size_t> pick(0, blocks.size() - 1);
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            const auto* blk = rng ? blocks[pick(*rng)] : blocks[i];
            out.insert(out.end(), blk->begin(), blk->end());
        }
        return out;
    };
    auto sa = pooled(a, nullptr), sb = pooled(b, nullptr);
    const double observed = static_cast<double>(quantile_of(sb, q) - quantile_of(sa, q));
    std::mt19937_64 rng(0x1f2e3d4c5b6a7988ULL);
    std::vector<double> diffs;
    diffs.reserve(static_cast<std::size_t>(resamples));
    for (int i = 0; i < resamples; ++i) {
        auto ra = pooled(a, &rng), rb = pooled(b, &rng);
        diffs.push_back(static_cast<double>(quantile_of(rb, q) - quantile_of(ra, q)));
    }
    std::sort(diffs.begin(), diffs.end());
    const double lo = diffs[static_cast<std::size_t>(0.005 * static_cast<double>(diffs.size()))];
    const double hi = diffs[std::min(diffs.size() - 1, static_cast<std::size_t>(0.995 * static_cast<double>(diffs.size())))];
    r.significant = lo > 0 || hi < 0;
    const double half = (hi - lo) / 2;
    r.statistic = half > 0 ? observed / half : (observed == 0 ? 0 : std::copysign(INFINITY, observed));
    return r;
}

}  // namespace irqflow::ui
