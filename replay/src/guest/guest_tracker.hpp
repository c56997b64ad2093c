// The guest's side of each delivery (replay/README.md, "Guest handlers"): the guest's
// handler events, already on the host's clock, taken in time order between the host's
// events. An injection of vector V on vCPU c waits for the guest's handler of V on CPU c;
// a handler entry looks for the delivery that caused it. What it decides goes to the
// GUEST-* rules as GuestOutcomes; its counts and the per-vector stages are the result's.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "../observe/latency_distribution.hpp"
#include "guest_outcome.hpp"
#include "irqflow/capture/guest.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/guest_match.hpp"

namespace irqflow::replay {

class GuestTracker {
public:
    using Sink = std::function<void(const GuestOutcome&)>;
    GuestTracker(const Trace& host, const GuestTrace& guest, VmId vm, Sink sink);
    GuestTracker(const GuestTracker&) = delete;
    GuestTracker& operator=(const GuestTracker&) = delete;
    // Before the host's event at `ts`: the guest's events up to it.
    void until(TimestampNs ts) {
        while (gi_ < guest_.events.size() && guest_.events[gi_].aligned && guest_.events[gi_].ts <= ts) on_guest(guest_.events[gi_++]);
    }
    // Each host event, after until(e.ts).
    void host(const Event& e) {
        last_host_ = {e.record, e.ts};
        if (e.kind == EventKind::Lost) ++lost_;
        if (e.vm == vm_) on_host(e);
    }
    // The host's trace ended: the guest's events after it, then what still waits.
    void finish();
    GuestMatch take() { return std::move(m_); }

private:
    static constexpr int kVectors = 256;
    struct Delivery {
        bool judged = false;      // injected while the guest traced this vCPU: counted
        bool waiting = false;     // delivered (injected, or accepted), its handler not yet entered
        bool injected = false;    // by an injection (not only an accept)
        bool eoi_early = false;   // its EOI came before its handler's entry
        bool in_handler = false;  // entered, not yet exited
        bool eoi_seen = true;     // its EOI came (or none is awaited)
        HostAt injection, eoi;
        std::uint64_t guest_seen = 0;  // the vCPU's guest events by the injection
        std::uint64_t lost = 0;        // the host's lost-event records by the delivery
        std::uint64_t handler = 0;     // the guest record of its handler's entry
        std::int64_t entry_ts = 0;
        std::optional<std::int64_t> accept_ts;
    };
    struct Distributions {
        LatencyDistribution accept_to_inject, inject_to_entry, entry_to_exit, entry_to_eoi;
    };
    struct GuestCpu {
        std::uint64_t seen = 0;  // guest events on it so far
        std::uint64_t last = 0;  // the last one's record and time
        TimestampNs last_ts{0};
    };

    bool traced(int vcpu, std::int64_t ts) const;
    bool handler_traced(int c, int v) const;
    std::string handler_name(int c, int v) const;
    std::optional<int> vcpu_of_apic(std::int64_t apic) const;
    std::optional<int> vector_of(const GuestEvent& g) const;
    void on_host(const Event& e);
    void on_inject(const Event& e);
    void on_guest(const GuestEvent& g);
    void entry(const GuestEvent& g, int v);
    // A waiting delivery that `until` ended (the vector's next injection, or the end).
    void ended(int vcpu, int vector, Delivery& d, HostAt until, bool at_end);

    const GuestTrace& guest_;
    VmId vm_;
    Sink sink_;
    std::size_t gi_ = 0;
    HostAt last_host_;
    std::uint64_t lost_ = 0;
    bool host_over_ = false;
    std::unordered_map<std::uint32_t, int> apic_to_vcpu_;
    std::map<int, std::int64_t> first_guest_;  // vCPU → its first guest event
    std::int64_t guest_end_ = 0;
    // vCPUs the host's trace showed before the guest's trace began on them, in a
    // recording (not an excerpt): a handler there with no delivery before it is judged
    bool recording_;
    std::set<int> host_vcpus_;  // vCPUs the host's trace has shown so far
    std::set<int> host_first_;
    std::set<int> injecting_;   // … and those it has shown an injection on
    std::map<int, GuestCpu> cpus_;
    std::map<int, std::array<Delivery, kVectors>> deliveries_;
    std::map<int, std::array<std::optional<std::int64_t>, kVectors>> accepted_;  // vCPU → vector → first accept since its delivery
    GuestVectorMap vectors_;                                      // the guest's IRQ → vector map so far
    std::map<int, std::string> system_vectors_;                   // vector → its *_entry event's name
    std::map<int, Distributions> dist_;
    GuestMatch m_;
};

}  // namespace irqflow::replay
