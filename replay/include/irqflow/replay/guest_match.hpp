// Both sides of each interrupt: every injection the host made matched to the handler
// the guest ran for it, and every handler the guest ran to the delivery that caused it
// (replay/README.md, "Guest handlers"). The replay does the matching when it is given
// the guest's trace (ReplayOptions::guest); these are its counts.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "irqflow/capture/guest.hpp"
#include "irqflow/replay/latency.hpp"

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
    std::uint64_t unhandled = 0;    // another injection of the vector, or the end, came first (GUEST-INJECTION-UNHANDLED)
    std::uint64_t unmapped = 0;     // device handlers of an IRQ the guest's trace never gave a vector
    // Injections not judged: of a vector the guest's trace has no handler event for (a
    // system vector with no trace point, such as KVM's async page fault 0xf3) …
    std::uint64_t untraced = 0;
    std::set<int> untraced_vectors;
    // … or with no guest event at all on their vCPU before the vector's next injection
    // (or the end): the guest's trace has a hole there, a missing handler cannot be told
    // from it. Of those, the host saw the EOI of `silent_eoied` (the handler ran).
    std::uint64_t silent = 0, silent_eoied = 0;
    // Handler entries in the guest (system vectors' and device IRQs'; a shared IRQ's
    // further handlers in one run count once).
    std::uint64_t handlers = 0;
    std::uint64_t explained = 0;    // an injection of their vector on their vCPU was waiting
    std::uint64_t explained_by_accept = 0;  // of those: delivered with no injection (posted, AVIC) after an accept
    std::uint64_t unexplained = 0;  // GUEST-HANDLER-UNEXPLAINED
    // Handler entries not judged: the host trace lost events since the vector's last
    // delivery on that vCPU, or had not begun on it.
    std::uint64_t handlers_not_judged = 0;
    // where the host saw each matched delivery's EOI: before its handler's entry (Linux
    // acks edge IRQs and some system vectors first), inside the handler, or after it
    std::uint64_t eoi_before_handler = 0, eoi_inside_handler = 0, eoi_after_handler = 0;
    std::map<int, GuestLatency> latency;  // by vector
};

}  // namespace irqflow::replay
