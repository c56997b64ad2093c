// Whether two runs differ by more than chance explains: the tests `irqflow diff` uses
// (ui/README.md, "Comparing two runs"), each significant at a two-sided 1 % level.
#pragma once
#include <cstdint>
#include <vector>

namespace irqflow::ui {

struct TestResult {
    bool significant = false;
    double statistic = 0;  // t or z
    const char* test = "";  // "welch-t", "block bootstrap", "exact ...": which test decided
};

// Student's t quantile for a two-sided 1 % test at `df` degrees of freedom (from a
// table, linear in 1/df between its rows; the normal's 2.576 beyond).
double t_critical_1pct(double df);

// Welch's t-test on two samples, e.g. a rate measured in each time block of each run.
TestResult welch(const std::vector<double>& a, const std::vector<double>& b);
// The same from each side's mean, variance of one value and count (a mean of n values).
TestResult welch_moments(double mean_a, double var_a, double n_a, double mean_b, double var_b, double n_b);

// A block bootstrap of a percentile's change: each side's samples come in time blocks
// (samples close in time are not independent, blocks roughly are); `resamples` times,
// draw each side's blocks with replacement, pool them, and take the difference of the
// q-quantiles (B − A). Significant when the central 99 % of those differences excludes
// zero; the statistic is the observed difference over half that interval's width.
// Deterministic: a fixed seed, so the same runs always get the same verdict.
TestResult bootstrap_percentile(const std::vector<std::vector<std::int64_t>>& a_blocks, const std::vector<std::vector<std::int64_t>>& b_blocks,
                                double q, int resamples = 400);

}  // namespace irqflow::ui
