// The 8259 PIC pair as far as the replay needs it: the vector bases the guest programmed
// (ICW2), so an injection that is not in the local APIC can be recognised as the PIC's
// ExtINT delivery.
#pragma once
#include <array>
#include <cstdint>

namespace irqflow::replay {

class Pic8259 {
public:
    // A guest write to port 0x20/0x21 (master) or 0xa0/0xa1 (slave): ICW1 (bit 4 on the
    // command port) announces ICW2 = the vector base on the data port.
    void write_port(std::int64_t port, std::int64_t value);
    // Whether the PIC can deliver this vector: within a programmed base's eight, or any
    // vector while the trace has not shown the programming.
    bool delivers(int vector) const;

private:
    std::array<int, 2> base_{-1, -1};
    std::array<bool, 2> expect_icw2_{false, false};
};

}  // namespace irqflow::replay
