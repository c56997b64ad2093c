// Latency percentiles stay exact for small sample counts and within 1/128 of the exact
// value once a vector has more samples than are kept.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "observe/latency_distribution.hpp"

using irqflow::replay::LatencyDistribution;

TEST_CASE("latency percentiles are exact up to the kept samples", "[replay][latency]") {
    LatencyDistribution d;
    for (int i = 1000; i >= 1; --i) d.add(i * 10);
    const auto l = d.summary();
    CHECK(l.count == 1000);
    CHECK(l.p50 == 5010);  // rank 500 of 10, 20, … 10000
    CHECK(l.p90 == 9010);
    CHECK(l.p99 == 9910);
    CHECK(l.max == 10000);
}

TEST_CASE("latency percentiles from the histogram stay within 1/128 of the exact ones", "[replay][latency]") {
    std::mt19937_64 rng(7);
    std::lognormal_distribution<double> dist(9.0, 1.5);  // ~8 µs median, a long tail
    LatencyDistribution d;
    std::vector<std::int64_t> all;
    for (std::size_t i = 0; i < 10 * LatencyDistribution::kExact; ++i) {
        const auto v = static_cast<std::int64_t>(dist(rng));
        all.push_back(v);
        d.add(v);
    }
    d.add(-5);  // clock skew: counted as 0
    all.push_back(0);
    std::sort(all.begin(), all.end());
    const auto l = d.summary();
    auto exact = [&](double q) { return all[std::min(all.size() - 1, static_cast<std::size_t>(q * static_cast<double>(all.size())))]; };
    CHECK(l.count == all.size());
    CHECK(l.max == all.back());
    for (auto [got, q] : {std::pair{l.p50, 0.5}, {l.p90, 0.9}, {l.p99, 0.99}}) {
        INFO("q " << q << ": " << got << " against " << exact(q));
        CHECK(std::abs(static_cast<double>(got - exact(q))) <= static_cast<double>(exact(q)) / 128 + 1);
    }
}
