#include "synic.hpp"

#include "registers.hpp"

namespace irqflow::replay {

void Synic::write_sint(std::int64_t value) {
    const int vector = msr::sint_vector(value);
    if (vector < apic::kFirstLegalVector) return;
    if (msr::sint_auto_eoi(value)) auto_eoi_.set(vector);
    else auto_eoi_.clear(vector);
}

}  // namespace irqflow::replay
