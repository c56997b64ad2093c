// How far apart the host CPUs' trace clocks may be, from what the trace proves
// (replay/README.md, "Clock skew"). An effect is traced after its cause; when cause and
// effect lie on different host CPUs A and B, the observed t_B - t_A is the true delay
// plus the skew between the two clocks, so the skew is below the smallest A→B delay and
// above minus the smallest B→A delay. The bound is the larger of the two over every CPU
// pair seen in both directions. Causal pairs used: an accept into an empty IRR slot on
// a synced vCPU, then that vCPU's injection of the vector.
#pragma once
#include <cstdint>
#include <map>
#include <utility>

namespace irqflow::replay {

class ClockSkew {
public:
    void pair(std::int32_t cause_cpu, std::int32_t effect_cpu, std::int64_t delay_ns);
    // The bound in ns, or -1 while no CPU pair was seen in both directions.
    std::int64_t bound_ns() const { return bound_; }
    std::uint64_t pairs() const { return pairs_; }

private:
    std::map<std::pair<std::int32_t, std::int32_t>, std::int64_t> min_delay_;  // (cause, effect) CPUs → smallest delay
    std::int64_t bound_ = -1;
    std::uint64_t pairs_ = 0;
};

}  // namespace irqflow::replay
