// One vector's interrupts followed end to end, for `irqflow trace-irq` (ui/README.md,
// "Following one interrupt"): each interrupt the replay saw (accept → inject → the EOI
// that ended its service), and each IPI of that vector linked to the interrupt it
// became on each of its destinations.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::ui {

// A destination of an IPI: the vCPU owning the APIC id it named, and the interrupt it
// became there — the first of that vector on that vCPU accepted (or, with no accept
// seen, injected) at or after the send and before the next IPI of the vector to it.
// None: merged into one already pending, or not delivered within the trace.
struct IpiDestination {
    std::uint32_t apic = 0;
    VcpuId vcpu = kUnknownVcpu;  // unknown: no vCPU of the VM has that APIC id
    const replay::InterruptRecord* irq = nullptr;
    // Without an interrupt: the accept of the vector on that vCPU between the send and
    // the next IPI to it, if the trace has one (it reached the APIC, and was then merged
    // into one already pending or never injected within the trace).
    std::optional<std::uint64_t> accept_record;
};

// A chain in time order: an IPI with its destinations, or an interrupt no IPI in the
// trace explains (a timer, a device, an IPI sent before the trace began).
struct IrqChain {
    std::int64_t start_ts = 0;
    const replay::IpiRecord* ipi = nullptr;
    std::vector<IpiDestination> destinations;  // with an IPI
    const replay::InterruptRecord* irq = nullptr;  // without
};

struct IrqChainFilter {
    int vector = 0;
    std::optional<VcpuId> vcpu;  // an IPI it sent or received, an interrupt of it
    std::optional<std::pair<std::int64_t, std::int64_t>> span;  // chains starting in it
};

// `r`: replayed with collect_details. Pointers into `r`.
std::vector<IrqChain> irq_chains(const Trace& t, const replay::ReplayResult& r, const IrqChainFilter& f);

// The key an interrupt is matched to an IPI by: its accept, else its injection.
inline std::uint64_t arrival_record(const replay::InterruptRecord& i) { return i.accept_ts != 0 ? i.accept_record : i.inject_record; }
inline std::int64_t arrival_ts(const replay::InterruptRecord& i) { return i.accept_ts != 0 ? i.accept_ts : i.inject_ts; }

}  // namespace irqflow::ui
