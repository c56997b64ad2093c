// IPIs sent and not yet complete. KVM delivers an IPI synchronously on the sender's
// thread, so its kvm_apic_accept_irq events come on that thread before its next VM
// entry (or exit, for sends from the host side); until then the send collects them.
#pragma once
#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "irqflow/capture/types.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

struct IpiSend {
    std::uint64_t record = 0;
    TimestampNs ts;
    VmId vm = kUnknownVm;
    VcpuId sender = kUnknownVcpu;
    IpiKind kind = IpiKind::IcrWrite;
    int vector = 0;
    int delivery_mode = 0;
    std::set<std::uint32_t> expected;  // APIC ids the send addresses
    std::set<std::uint32_t> received;  // APIC ids that got it
    bool lowest_priority = false;      // exactly one of `expected` gets it
    bool exact = true;                 // false: `expected` is only a lower bound
};

class IpisInFlight {
public:
    IpiSend& add(Tid sender, IpiSend send);
    // An accept on `thread`: every send in flight there with this vector and delivery
    // mode reached `apic`.
    void received(Tid thread, int vector, int delivery_mode, std::uint32_t apic) {
        if (in_flight_) received_slow(thread, vector, delivery_mode, apic);
    }
    // The sender's thread entered or exited the guest: its sends are complete (moved to `out`).
    void complete(Tid sender, std::vector<IpiSend>& out) {
        if (in_flight_) complete_slow(sender, out);
    }
    // The end of the trace: every send is complete, senders in thread order.
    void complete_all(std::vector<IpiSend>& out);
    // Lost events: the accepts may be among them; nothing can be judged.
    void drop_all() {
        by_sender_.clear();
        in_flight_ = 0;
    }

private:
    void received_slow(Tid thread, int vector, int delivery_mode, std::uint32_t apic);
    void complete_slow(Tid sender, std::vector<IpiSend>& out);
    std::unordered_map<std::int32_t, std::vector<IpiSend>> by_sender_;
    std::size_t in_flight_ = 0;  // sends in by_sender_: most events find none
};

}  // namespace irqflow::replay
