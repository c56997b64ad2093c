// The inspector's data side: every vCPU's modelled APIC at any time, from periodic
// replay checkpoints, so a seek costs at most `every` events of replay.
#pragma once
#include <memory>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::gui {

class StateIndex {
public:
    explicit StateIndex(const Trace& trace, std::size_t every = 50'000);
    // State after every event with a timestamp <= ts.
    std::vector<replay::VcpuState> at(std::int64_t ts) const;
    std::size_t checkpoints() const { return checkpoints_.size(); }

private:
    const Trace& trace_;
    std::vector<std::unique_ptr<replay::Replayer>> checkpoints_;  // positions 0, every, 2*every, ...
    std::size_t every_;
};

}  // namespace irqflow::gui
