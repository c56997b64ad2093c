// IPIs sent and not yet complete. KVM delivers an IPI synchronously on the sender's
// thread, so its kvm_apic_accept_irq events come on that thread before its next VM
// entry (or exit, for sends from the host side); until then the send collects them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "apic_id_set.hpp"
#include "effect.hpp"

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
    ApicIdSet expected;  // APIC ids the send addresses
    ApicIdSet received;  // APIC ids that got it
    bool lowest_priority = false;      // exactly one of `expected` gets it
    bool exact = true;                 // false: `expected` is only a lower bound
    // Each accept it collected: the APIC id and its record (for a diagnosis to point at).
    std::vector<std::pair<std::uint32_t, std::uint64_t>> accepts;
    std::uint64_t completed_record = 0;  // the sender's entry or exit that completed it
    TimestampNs completed_ts;
};

// Sends are kept per sending vCPU; an accept finds its sender by thread.
class IpisInFlight {
public:
    IpisInFlight() = default;
    // The vCPU in `slot` sends from `thread` (a vCPU at a time, as they become known).
    void add_sender(Tid thread, VcpuSlot slot);
    void add(VcpuSlot sender, IpiSend send) {
        by_sender_[static_cast<std::size_t>(sender.value())].push_back(std::move(send));
        ++in_flight_;
    }
    const IpiSend& last(VcpuSlot sender) const { return by_sender_[static_cast<std::size_t>(sender.value())].back(); }
    // An accept on `thread`: every send in flight there with this vector and delivery
    // mode reached `apic`.
    void received(Tid thread, int vector, int delivery_mode, std::uint32_t apic, std::uint64_t record) {
        if (in_flight_) received_slow(thread, vector, delivery_mode, apic, record);
    }
    // The sender entered or exited the guest: its sends are complete. `out` (empty)
    // takes them.
    void complete(VcpuSlot sender, std::vector<IpiSend>& out, std::uint64_t record, TimestampNs ts) {
        auto& list = by_sender_[static_cast<std::size_t>(sender.value())];
        if (list.empty()) return;
        in_flight_ -= list.size();
        for (auto& s : list) {
            s.completed_record = record;
            s.completed_ts = ts;
        }
        out.swap(list);
    }
    // The end of the trace: every send is complete, senders in thread order.
    void complete_all(std::vector<IpiSend>& out);
    // Lost events: the accepts may be among them; nothing can be judged.
    void drop_all();

private:
    void received_slow(Tid thread, int vector, int delivery_mode, std::uint32_t apic, std::uint64_t record);
    std::vector<std::vector<IpiSend>> by_sender_;            // by vCPU slot
    std::vector<std::pair<std::int32_t, VcpuSlot>> by_tid_;  // sorted: a sender's thread → its slot
    std::size_t in_flight_ = 0;                              // most events find none
};

}  // namespace irqflow::replay
