// What the guest tracker decided about one delivery or one guest handler: what the
// GUEST-* rules judge (replay/README.md, "Guest handlers").
#pragma once
#include <cstdint>
#include <string>

#include "irqflow/capture/types.hpp"

namespace irqflow::replay {

// A record of the host's trace, with its time.
struct HostAt {
    std::uint64_t record = 0;
    TimestampNs ts{0};
};

struct GuestOutcome {
    enum class Kind : std::uint8_t {
        Handled,      // a judged injection's handler ran in the guest
        Unhandled,    // a judged injection got no handler before `until`
        Explained,    // a judged handler entry had its delivery waiting
        Unexplained,  // a judged handler entry had none
    };
    Kind kind = Kind::Handled;
    VcpuId vcpu = kUnknownVcpu;
    int vector = -1;
    // The guest's handler of `vector` on that CPU, named as its trace names it
    // ("local_timer_entry", "irq_handler_entry of IRQ 25 (virtio0-input.0)").
    std::string handler;
    // The injection (Handled, Unhandled), or the last delivery of the vector on that vCPU
    // before the handler (Unexplained; record 0 when there was none).
    HostAt injection{};
    // Unhandled: what came first instead of the handler — the next injection of the
    // vector, or the host's last record (at_end); the EOI the host saw for the injection
    // (record 0: none), and the guest's last event on that CPU before `until`.
    HostAt until{}, eoi{};
    bool at_end = false;
    std::uint64_t guest_last = 0;
    TimestampNs guest_last_ts{0};
    // The guest's handler entry (Handled, Explained, Unexplained), and the host's last
    // record before it (where a finding about it sits in the host's trace).
    std::uint64_t guest_record = 0;
    TimestampNs guest_ts{0};
    HostAt host_before{};
    // Unexplained: the handler the last delivery already had (0: none), and for a device
    // IRQ the guest record that put its vector there.
    std::uint64_t previous_handler = 0;
    std::uint64_t mapped_by = 0;
    bool mapped = false;  // the IRQ's vector came from the guest's vector_config/update
    // Unexplained: the latest injection on that vCPU still waiting for its handler, of
    // another vector (-1: none) — the handler may be its, under a wrong vector.
    int waiting_vector = -1;
    HostAt waiting_injection{};
};

}  // namespace irqflow::replay
