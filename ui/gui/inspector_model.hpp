// The inspector's data side: every vCPU's modelled APIC at any time, from periodic
// replay checkpoints, so a seek costs at most `every` events of replay; the set bits as
// text, and the interrupt behind a clicked ISR bit.
#pragma once
#include <memory>
#include <string>
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

// The set's vectors as text, highest first as the APIC serves them ("0xec 0x22"), or "none".
std::string vector_list(const replay::VectorSet& v);

// The interrupt that holds `vector` in service on a vCPU at `ts` (its accept, injection
// and EOI records: what the inspector shows for a clicked ISR bit); null if none.
const replay::InterruptRecord* interrupt_in_service(const replay::ReplayResult& r, VmId vm, VcpuId vcpu, int vector, std::int64_t ts);

}  // namespace irqflow::gui
