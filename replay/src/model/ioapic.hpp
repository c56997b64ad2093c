// The in-kernel IOAPIC's redirection entries, as kvm_ioapic_set_irq shows them, and the
// one fact the replay needs from them: which vectors KVM treats as IOAPIC-handled on a
// vCPU (their EOI must exit, so PV EOI is never armed for them).
#pragma once
#include <array>
#include <cstdint>

#include "irqflow/capture/types.hpp"
#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

class Lapic;

class Ioapic {
public:
    static constexpr int kPins = 24;
    static constexpr int kRtcPin = 8;  // KVM tracks the RTC pin's EOI whatever its trigger mode

    struct Entry {
        int vector = -1;
        bool level = false;
        std::uint32_t dest = 0;
        bool logical = false;
        bool operator==(const Entry&) const = default;
    };
    // A pin's redirection entry as last seen; out-of-range pins are ignored.
    void route(int pin, const Entry& e);
    // The entry last seen for `pin` (vector -1: none, or out of range).
    Entry entry(int pin) const { return pin >= 0 && pin < kPins ? pins_[static_cast<std::size_t>(pin)] : Entry{}; }
    // An EOI of `vector` went on to the IOAPIC and acknowledged `pin` (kvm_ack_irq).
    // KVM sends an EOI there only for vectors it treats as IOAPIC-handled, and acks
    // every pin of that vector. When nothing else explains it — the pin is edge-
    // triggered, has that vector, and no level or RTC pin shares the vector — the pin
    // has an ack notifier (the in-kernel PIT on pin 2 does): handled from now on.
    void acked(int pin, int vector);
    // KVM's ioapic_handled_vectors for one vCPU: vectors of level-triggered pins (and
    // the RTC pin, and pins with an ack notifier) whose destination is this vCPU. Per vCPU, because Linux may give the
    // same vector to an edge pin on one CPU and a level pin on another (seen in the
    // samples: 0x22 for the serial port and for virtio-blk). An xAPIC logical
    // destination the guest's LDR does not settle counts as "not handled": never a
    // finding we cannot back.
    bool handles(int vector, const Lapic& lapic, ApicId apic) const;

private:
    bool tracked(int pin) const {
        const auto& p = pins_[static_cast<std::size_t>(pin)];
        return p.level || pin == kRtcPin || notifier_[static_cast<std::size_t>(pin)];
    }
    void update_candidates();

    std::array<Entry, kPins> pins_{};
    std::array<bool, kPins> notifier_{};  // learnt by acked()
    VectorSet candidates_;  // vectors of level/RTC/notifier pins: the quick reject
};

}  // namespace irqflow::replay
