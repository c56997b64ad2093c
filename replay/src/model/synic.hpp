// Hyper-V SynIC, as far as interrupt flow goes: which vectors the guest set up as
// auto-EOI SINTs (KVM delivers them without setting ISR, and no EOI follows).
#pragma once
#include <cstdint>

#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

class Synic {
public:
    // A write to SINTx (HV_X64_MSR_SINT0..15).
    void write_sint(std::int64_t value);
    bool auto_eoi(int vector) const { return auto_eoi_.test(vector); }

private:
    VectorSet auto_eoi_;
};

}  // namespace irqflow::replay
