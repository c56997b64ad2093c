// Both sides of each interrupt: every injection the host made matched to the handler
// the guest ran for it, and every handler the guest ran to the injection that caused it
// (replay/README.md, "Guest handlers"). The guest's events must be on the host's clock
// (align_guest_clock).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

// One vector's delivery, stage by stage (ns): the accept to the injection, the injection
// to the guest's handler entry, the handler's run, and its entry to the EOI the host saw
// (an EOI inside the handler, as Linux's system vectors do, comes before its exit).
struct GuestLatency {
    Latency accept_to_inject, inject_to_entry, entry_to_exit, entry_to_eoi;
};

struct GuestMatch {
    // Injections (not soft, not re-injections) on a vCPU the guest traced, while it traced.
    std::uint64_t injections = 0;
    std::uint64_t matched = 0;      // followed by their vector's handler on that vCPU
    std::uint64_t unhandled = 0;    // another injection of the vector, or the end, came first
    std::uint64_t unmapped = 0;     // device handlers of an IRQ the guest's trace never gave a vector
    // Injections not judged: of a vector the guest's trace has no handler event for (a
    // system vector with no trace point, such as KVM's async page fault 0xf3).
    std::uint64_t untraced = 0;
    std::set<int> untraced_vectors;
    // Handler entries in the guest (system vectors' and device IRQs'; a shared IRQ's
    // further handlers in one run count once).
    std::uint64_t handlers = 0;
    std::uint64_t explained = 0;    // an injection of their vector on their vCPU was waiting
    std::uint64_t unexplained = 0;
    // where the host saw each matched delivery's EOI: before its handler's entry (Linux
    // acks edge IRQs and some system vectors first), inside the handler, or after it
    std::uint64_t eoi_before_handler = 0, eoi_inside_handler = 0, eoi_after_handler = 0;
    struct Miss {
        std::uint64_t record;  // the host's injection record (unhandled) or the guest's record (unexplained)
        TimestampNs ts;
        VcpuId vcpu;
        int vector;
    };
    static constexpr std::size_t kKept = 16;  // of each list, the first
    std::vector<Miss> unhandled_first, unexplained_first;
    std::map<int, GuestLatency> latency;  // by vector
};

GuestMatch match_guest(const Trace& host, const GuestTrace& guest, VmId vm);

}  // namespace irqflow::replay
