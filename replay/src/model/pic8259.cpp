#include "pic8259.hpp"

namespace irqflow::replay {
namespace {
constexpr std::int64_t kMasterCommand = 0x20, kMasterData = 0x21, kSlaveCommand = 0xa0, kSlaveData = 0xa1;
constexpr std::int64_t kIcw1Init = 0x10;
}  // namespace

void Pic8259::write_port(std::int64_t port, std::int64_t value) {
    const std::size_t chip = (port == kSlaveCommand || port == kSlaveData) ? 1 : 0;
    if (port == kMasterCommand || port == kSlaveCommand) {
        expect_icw2_[chip] = (value & kIcw1Init) != 0;
    } else if ((port == kMasterData || port == kSlaveData) && expect_icw2_[chip]) {
        base_[chip] = static_cast<int>(value & 0xf8);
        expect_icw2_[chip] = false;
    }
}

bool Pic8259::delivers(int vector) const {
    if (base_[0] < 0 && base_[1] < 0) return true;
    for (int b : base_)
        if (b >= 0 && vector >= b && vector < b + 8) return true;
    return false;
}

}  // namespace irqflow::replay
