// A latency distribution as the replay reports it.
#pragma once
#include <cstdint>

namespace irqflow::replay {

// Latency samples summarized.
struct Latency {
    std::uint64_t count = 0;
    std::int64_t p50 = 0, p90 = 0, p99 = 0, max = 0;  // ns
};

}  // namespace irqflow::replay
