// The guest's own trace of its interrupts, read next to the host's: which handler the
// guest ran for each vector, on the host's clock (capture/README.md, "Guest traces").
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

// The guest events irqflow reads (the rest of a guest trace is counted, not used).
enum class GuestEventKind : std::uint8_t {
    VectorEntry,   // irq_vectors:*_entry — a system vector's handler starts (local_timer_entry …)
    VectorExit,    // irq_vectors:*_exit
    IrqEntry,      // irq:irq_handler_entry — a device IRQ's handler starts
    IrqExit,       // irq:irq_handler_exit
    VectorConfig,  // irq_vectors:vector_config — IRQ → (vector, CPU) as programmed
    VectorUpdate,  // irq_vectors:vector_update — the same, when the allocator moves it
};

struct GuestEvent {
    TimestampNs guest_ts;     // the guest trace's own time (x86-tsc: the guest's cycles)
    TimestampNs ts;           // on the host trace's clock once aligned; guest_ts before
    std::uint64_t record = 0; // index of the record in the guest trace
    VcpuId vcpu = kUnknownVcpu;  // the guest CPU it ran on: vCPU N is guest CPU N
    GuestEventKind kind = GuestEventKind::VectorEntry;
    std::uint16_t name_id = 0;   // its tracepoint in GuestTrace::names
    Vector vector{-1};           // vector events; vector_config/update: the vector programmed
    std::int32_t irq = -1;       // irq_handler_*, vector_config/update
    std::int32_t target_cpu = -1;  // vector_config/update: the CPU the vector is on
    std::int32_t ret = -1;       // irq_handler_exit: 1 handled, 0 not
    bool aligned = false;        // ts is on the host's clock
};

struct GuestTrace {
    TraceMeta meta;
    std::vector<std::string> names;      // tracepoint names, by GuestEvent::name_id
    std::vector<GuestEvent> events;      // in the guest trace's time order
    std::map<std::int32_t, std::string> irq_names;  // IRQ → its handler's name ("virtio0")
    std::uint64_t other_events = 0;      // events of the trace irqflow does not read here
};

// The guest events of a loaded trace (its Other events, read by their printed fields:
// the same for a trace.dat and a pasted report). The trace must keep Other events' info
// (LoadOptions::other_event_info for a trace.dat). Throws InputError naming the record
// when a guest event's fields do not read.
GuestTrace guest_events(const Trace& t);
// load_trace + guest_events; refuses a trace with no guest interrupt events in it.
GuestTrace load_guest_trace(const std::string& path);

// How the guest's clock was put onto the host's.
struct GuestClock {
    // Tsc: exact, from the TSC offsets. GuestTime: both traces in ns, the offset bounded by
    // every guest event having to fall inside its vCPU's time in the guest (bound_ns).
    enum class Method { Tsc, GuestTime, None };
    Method method = Method::None;
    std::int64_t bound_ns = 0;     // how far off a guest event's host time may be (0: exact)
    // One line for users: how, from what, and how exact ("tsc: exact, offset … from
    // kvm_write_tsc_offset on vCPUs 0-3, host TSC2NSEC ×796882227 >> 31"); for None, why.
    std::string detail;
    VmId vm = kUnknownVm;          // the host's VM the guest is (whose vCPUs the offsets are for)
    std::uint64_t aligned = 0;     // guest events given a host time
    std::uint64_t unaligned = 0;   // guest events on a vCPU the host trace gave no offset
};

// Puts every guest event onto the host trace's clock (GuestEvent::ts) and re-sorts them
// by it (the events it could not align last). TSC: the host recorded with a TSC clock turned into ns (TSC2NSEC) and
// kvm_write_tsc_offset says each vCPU's offset, the guest traced with x86-tsc: exact.
// The host trace must keep Other events' info (kvm_write_tsc_offset is one).
GuestClock align_guest_clock(const Trace& host, GuestTrace& guest);


}  // namespace irqflow

namespace irqflow {

// The guest's IRQ → vector map as its own trace says it, replayed in time: vectors are per
// CPU, vector_config/vector_update move an IRQ's, and until the trace configures a legacy
// IRQ it is where Linux puts the ISA IRQs at boot (IRQ n at 0x30 + n on CPU 0: a trace
// from boot sees the timer's handler before its vector_config). The replay's matching and
// the GUI's handler names both read it.
class GuestVectorMap {
public:
    // A vector_config or vector_update event (others are ignored).
    void apply(const GuestEvent& config);
    // IRQ `irq`'s vector on CPU `cpu` now, if known.
    std::optional<int> vector_of(int cpu, std::int32_t irq) const;
    // The IRQ whose vector on CPU `cpu` is `vector` now, if any.
    std::optional<std::int32_t> irq_at(int cpu, int vector) const;
    // The guest record that put IRQ `irq` on CPU `cpu` (none for the boot-time placement).
    std::optional<std::uint64_t> configured_by(int cpu, std::int32_t irq) const;

private:
    struct Placed {
        int vector;
        std::uint64_t record;
    };
    std::map<std::pair<int, std::int32_t>, Placed> placed_;  // (CPU, IRQ) → vector
    std::set<std::int32_t> configured_;                     // IRQs the trace configured
};

}  // namespace irqflow
