#include "ioapic.hpp"

#include "lapic.hpp"
#include "registers.hpp"

namespace irqflow::replay {

void Ioapic::route(int pin, const Entry& e) {
    if (pin < 0 || pin >= kPins) return;
    auto& p = pins_[static_cast<std::size_t>(pin)];
    if (p == e) return;
    p = e;
    update_candidates();
}

void Ioapic::acked(int pin, int vector) {
    if (pin < 0 || pin >= kPins || vector < apic::kFirstLegalVector || tracked(pin)) return;
    if (pins_[static_cast<std::size_t>(pin)].vector != vector) return;
    for (int i = 0; i < kPins; ++i)
        if (i != pin && pins_[static_cast<std::size_t>(i)].vector == vector && tracked(i)) return;
    notifier_[static_cast<std::size_t>(pin)] = true;
    update_candidates();
}

void Ioapic::update_candidates() {
    candidates_.reset();
    for (int i = 0; i < kPins; ++i) {
        const auto& q = pins_[static_cast<std::size_t>(i)];
        if (tracked(i) && q.vector >= apic::kFirstLegalVector) candidates_.set(q.vector);
    }
}

bool Ioapic::handles(int vector, const Lapic& lapic, ApicId apic) const {
    if (vector < apic::kFirstLegalVector || !candidates_.test(vector)) return false;
    for (int i = 0; i < kPins; ++i) {
        const auto& p = pins_[static_cast<std::size_t>(i)];
        if (p.vector != vector || !tracked(i)) continue;
        if (p.logical ? lapic.logical_match(p.dest).value_or(false) : (p.dest == apic.value() || p.dest == apic::kBroadcastXapic))
            return true;
    }
    return false;
}

}  // namespace irqflow::replay
