#include "latency.hpp"

#include <algorithm>

namespace irqflow::replay {
namespace {

Latency summarize(std::vector<std::int64_t>& s) {
    Latency l;
    if (s.empty()) return l;
    std::sort(s.begin(), s.end());
    auto at = [&](double q) { return s[std::min(s.size() - 1, static_cast<std::size_t>(q * static_cast<double>(s.size())))]; };
    l.count = s.size();
    l.p50 = at(0.5);
    l.p90 = at(0.9);
    l.p99 = at(0.99);
    l.max = s.back();
    return l;
}

}  // namespace

void LatencySamples::finish(ReplayStats& st) {
    for (int vec = 0; vec < 256; ++vec) {
        const auto u = static_cast<std::size_t>(vec);
        if (!a2i_[u].empty()) st.accept_to_inject[vec] = summarize(a2i_[u]);
        if (!i2e_[u].empty()) st.inject_to_eoi[vec] = summarize(i2e_[u]);
    }
}

}  // namespace irqflow::replay
