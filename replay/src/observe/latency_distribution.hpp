// One latency distribution in bounded memory: exact samples up to kExact (every
// capture in samples/ and any report excerpt stays exact), then a log-linear histogram
// — 64 sub-buckets per power of two, so a percentile is off by at most 1/128 of its
// value — so a 100 M-event trace's millions of interrupts cost ~30 KB per vector.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class LatencyDistribution {
public:
    static constexpr std::size_t kExact = 16384;

    void add(std::int64_t ns) {
        max_ = count_ == 0 ? ns : std::max(max_, ns);
        ++count_;
        if (hist_.empty()) {
            exact_.push_back(ns);
            if (exact_.size() > kExact) to_histogram();
            return;
        }
        ++hist_[bucket(ns)];
    }
    bool empty() const { return count_ == 0; }

    Latency summary() {
        Latency l;
        if (count_ == 0) return l;
        l.count = count_;
        l.max = max_;
        if (hist_.empty()) {
            std::sort(exact_.begin(), exact_.end());
            l.p50 = exact_[rank(0.5)];
            l.p90 = exact_[rank(0.9)];
            l.p99 = exact_[rank(0.99)];
            return l;
        }
        l.p50 = at_rank(rank(0.5));
        l.p90 = at_rank(rank(0.9));
        l.p99 = at_rank(rank(0.99));
        return l;
    }

private:
    static constexpr int kSubBits = 6;  // 64 sub-buckets per power of two
    static constexpr std::size_t kSub = std::size_t{1} << kSubBits;
    static constexpr std::size_t kBuckets = kSub + (63 - kSubBits) * kSub;

    // Negative latencies (trace clocks of two CPUs a little apart) count as 0.
    static std::size_t bucket(std::int64_t ns) {
        const auto v = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0));
        if (v < kSub) return static_cast<std::size_t>(v);
        const int e = 63 - std::countl_zero(v);  // ≥ kSubBits
        const std::uint64_t m = (v >> (e - kSubBits)) & (kSub - 1);
        return kSub + static_cast<std::size_t>(e - kSubBits) * kSub + static_cast<std::size_t>(m);
    }
    // The middle of a bucket's range.
    static std::int64_t value_of(std::size_t b) {
        if (b < kSub) return static_cast<std::int64_t>(b);
        const std::size_t e = (b - kSub) / kSub + kSubBits, m = (b - kSub) % kSub;
        const std::uint64_t low = (std::uint64_t{1} << e) | (std::uint64_t{m} << (e - kSubBits));
        const std::uint64_t width = std::uint64_t{1} << (e - kSubBits);
        return static_cast<std::int64_t>(low + width / 2);
    }
    std::size_t rank(double q) const {
        return std::min<std::size_t>(count_ - 1, static_cast<std::size_t>(q * static_cast<double>(count_)));
    }
    std::int64_t at_rank(std::size_t r) const {
        std::uint64_t seen = 0;
        for (std::size_t b = 0; b < hist_.size(); ++b) {
            seen += hist_[b];
            if (seen > r) return std::min(value_of(b), max_);
        }
        return max_;
    }
    void to_histogram() {
        hist_.assign(kBuckets, 0);
        for (std::int64_t v : exact_) ++hist_[bucket(v)];
        exact_.clear();
        exact_.shrink_to_fit();
    }

    std::vector<std::int64_t> exact_;
    std::vector<std::uint64_t> hist_;
    std::uint64_t count_ = 0;
    std::int64_t max_ = 0;
};

}  // namespace irqflow::replay
