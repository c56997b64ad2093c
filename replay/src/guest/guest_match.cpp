// Host injections matched to guest handlers (replay/README.md, "Guest handlers").
//
// The host's events and the guest's (already on the host's clock) are walked together in
// time order. An injection of vector V on vCPU c (not soft, not a re-injection: that is
// the same delivery again) waits for the guest's handler of V on c: `V_entry` of the
// system vectors, or `irq_handler_entry` of the IRQ whose vector on that CPU is V (the
// guest's vector_config/update say which: vectors are per CPU). It is unhandled when
// another injection of V on c, or the end of the guest's trace, comes first. A handler
// entry with no injection of its vector waiting on its vCPU is unexplained.
#include "irqflow/replay/guest_match.hpp"

#include <array>
#include <optional>
#include <set>
#include <unordered_map>

#include "../observe/latency_distribution.hpp"

namespace irqflow::replay {
namespace {

constexpr int kVectors = 256;
constexpr int kLegacyIrqs = 16, kIsaIrqVector0 = 0x30;  // Linux's ISA_IRQ_VECTOR(0)

struct Delivery {
    bool judged = false;            // injected while the guest traced this vCPU: counted
    bool waiting = false;           // injected, its handler not yet entered
    bool eoi_early = false;         // its EOI came before its handler's entry
    bool in_handler = false;        // entered, not yet exited
    bool eoi_seen = true;           // its EOI came (or none is awaited)
    std::uint64_t record = 0;
    std::int64_t inject_ts = 0, entry_ts = 0;
    std::optional<std::int64_t> accept_ts;
};

struct Distributions {
    LatencyDistribution accept_to_inject, inject_to_entry, entry_to_exit, entry_to_eoi;
};

class Matcher {
public:
    Matcher(const Trace& host, const GuestTrace& guest, VmId vm) : host_(host), guest_(guest), vm_(vm) {
        for (const auto& v : host.vms)
            if (v.id == vm)
                for (const auto& c : v.vcpus) apic_to_vcpu_[c.apic.value()] = c.id.value();
        for (const GuestEvent& g : guest.events)
            if (g.kind == GuestEventKind::VectorEntry) system_vectors_.insert(g.vector.value());
        for (const GuestEvent& g : guest.events)
            if (g.aligned) {
                first_guest_.try_emplace(g.vcpu.value(), g.ts.value());
                last_guest_[g.vcpu.value()] = g.ts.value();
                guest_end_ = g.ts.value();
            }
    }

    GuestMatch run() {
        host_.events.for_each([this](const Event& e) {
            while (gi_ < guest_.events.size() && guest_.events[gi_].aligned && guest_.events[gi_].ts <= e.ts) on_guest(guest_.events[gi_++]);
            on_host(e);
        });
        while (gi_ < guest_.events.size() && guest_.events[gi_].aligned) on_guest(guest_.events[gi_++]);
        // What still waits at the end never got its handler, unless its vCPU's trace ended
        // before it: then the handler may just not be in the trace (not judged).
        for (auto& [vcpu, ds] : deliveries_)
            for (int v = 0; v < kVectors; ++v) {
                Delivery& d = ds[static_cast<std::size_t>(v)];
                if (!d.waiting) continue;
                if (d.judged && d.inject_ts > last_guest_[vcpu]) {
                    d.judged = false;
                    --m_.injections;
                }
                unhandled(vcpu, v, d);
            }
        for (auto& [v, d] : dist_) {
            GuestLatency& l = m_.latency[v];
            l.accept_to_inject = d.accept_to_inject.summary();
            l.inject_to_entry = d.inject_to_entry.summary();
            l.entry_to_exit = d.entry_to_exit.summary();
            l.entry_to_eoi = d.entry_to_eoi.summary();
        }
        return std::move(m_);
    }

private:
    using PerVector = std::array<Delivery, kVectors>;

    // Whether the guest was tracing on this vCPU at ts.
    bool traced(int vcpu, std::int64_t ts) const {
        const auto it = first_guest_.find(vcpu);
        return it != first_guest_.end() && ts >= it->second && ts <= guest_end_;
    }
    // Whether the guest's trace has a handler event for vector v on CPU c now: one of its
    // system vectors' entry events, or a device IRQ's vector there (or a legacy IRQ's).
    bool handler_traced(int c, int v) const {
        if (system_vectors_.count(v)) return true;
        for (const auto& [at, vector] : irq_vector_)
            if (at.first == c && vector == v) return true;
        const int legacy = v - kIsaIrqVector0;
        return c == 0 && legacy >= 0 && legacy < kLegacyIrqs && !configured_.count(legacy);
    }
    std::optional<int> vcpu_of_apic(std::int64_t apic) const {
        const auto it = apic_to_vcpu_.find(static_cast<std::uint32_t>(apic));
        if (it == apic_to_vcpu_.end()) return std::nullopt;
        return it->second;
    }

    void unhandled(int vcpu, int vector, Delivery& d) {
        d.waiting = false;
        if (!d.judged) return;
        ++m_.unhandled;
        if (m_.unhandled_first.size() < GuestMatch::kKept)
            m_.unhandled_first.push_back({d.record, TimestampNs(d.inject_ts), VcpuId(vcpu), vector});
    }

    void on_host(const Event& e) {
        if (e.vm != vm_) return;
        switch (e.kind) {
        case EventKind::ApicAcceptIrq: {
            if (!e.has(slot::accept_apicid) || !e.has(slot::accept_vec)) return;  // a record cut short
            const auto c = vcpu_of_apic(e.f[slot::accept_apicid]);
            const auto v = e.f[slot::accept_vec];
            if (c && v >= 0 && v < kVectors && !accepted_[*c][static_cast<std::size_t>(v)]) accepted_[*c][static_cast<std::size_t>(v)] = e.ts.value();
            return;
        }
        case EventKind::InjVirq: {
            const int c = e.vcpu.value();
            if (!e.has(slot::inj_vector)) return;
            const auto v = e.f[slot::inj_vector];
            if (c < 0 || v < 0 || v >= kVectors || e.f[slot::inj_soft] || e.f[slot::inj_reinjected]) return;
            auto& accepted = accepted_[c][static_cast<std::size_t>(v)];
            const std::optional<std::int64_t> accept = accepted ? std::optional(*accepted) : std::nullopt;
            accepted.reset();
            // one injected before the guest traced still explains the handler that follows
            Delivery& d = deliveries_[c][static_cast<std::size_t>(v)];
            if (d.waiting) unhandled(c, static_cast<int>(v), d);
            d = Delivery{};
            d.judged = traced(c, e.ts.value());
            if (d.judged && !handler_traced(c, static_cast<int>(v))) {
                d.judged = false;
                ++m_.untraced;
                m_.untraced_vectors.insert(static_cast<int>(v));
            }
            if (d.judged) ++m_.injections;
            d.waiting = true;
            d.record = e.record;
            d.inject_ts = e.ts.value();
            d.accept_ts = accept;
            return;
        }
        case EventKind::Eoi: {
            if (!e.has(slot::eoi_apicid) || !e.has(slot::eoi_vector)) return;
            const auto c = vcpu_of_apic(e.f[slot::eoi_apicid]);
            const auto v = e.f[slot::eoi_vector];
            if (!c || v < 0 || v >= kVectors) return;
            const auto it = deliveries_.find(*c);
            if (it == deliveries_.end()) return;
            Delivery& d = it->second[static_cast<std::size_t>(v)];
            if (d.waiting) {  // Linux EOIs an edge IRQ, and a few system vectors, before the handler it traces
                d.eoi_early = true;
                return;
            }
            if (d.eoi_seen) return;
            d.eoi_seen = true;
            dist_[static_cast<int>(v)].entry_to_eoi.add(e.ts.value() - d.entry_ts);
            ++(d.in_handler ? m_.eoi_inside_handler : m_.eoi_after_handler);
            return;
        }
        default: return;
        }
    }

    // The vector a guest handler event is about on its CPU, if known.
    std::optional<int> vector_of(const GuestEvent& g) {
        switch (g.kind) {
        case GuestEventKind::VectorEntry:
        case GuestEventKind::VectorExit: return g.vector.value();
        case GuestEventKind::IrqEntry:
        case GuestEventKind::IrqExit: {
            const auto it = irq_vector_.find({g.vcpu.value(), g.irq});
            if (it != irq_vector_.end()) return it->second;
            // Until the guest's trace configures it, a legacy IRQ is where Linux puts the
            // ISA IRQs at boot: IRQ n at vector 0x30 + n on CPU 0 (a trace that starts at
            // boot sees the timer's handler before the timer's vector_config).
            if (g.irq >= 0 && g.irq < kLegacyIrqs && g.vcpu.value() == 0 && !configured_.count(g.irq)) return kIsaIrqVector0 + g.irq;
            return std::nullopt;
        }
        default: return std::nullopt;
        }
    }

    void on_guest(const GuestEvent& g) {
        const int c = g.vcpu.value();
        if (g.kind == GuestEventKind::VectorConfig || g.kind == GuestEventKind::VectorUpdate) {
            // the IRQ's vector now lives on target_cpu; it left any other CPU
            for (auto it = irq_vector_.begin(); it != irq_vector_.end();)
                it = it->first.second == g.irq ? irq_vector_.erase(it) : std::next(it);
            irq_vector_[{g.target_cpu, g.irq}] = g.vector.value();
            configured_.insert(g.irq);
            return;
        }
        const bool entry = g.kind == GuestEventKind::VectorEntry || g.kind == GuestEventKind::IrqEntry;
        const auto v = vector_of(g);
        if (!v) {
            if (entry) ++m_.unmapped;
            return;
        }
        Delivery& d = deliveries_[c][static_cast<std::size_t>(*v)];
        if (!entry) {
            if (d.in_handler) {
                d.in_handler = false;
                dist_[*v].entry_to_exit.add(g.ts.value() - d.entry_ts);
            }
            return;
        }
        if (d.in_handler && g.kind == GuestEventKind::IrqEntry) return;  // the IRQ's next handler (shared) in the same run
        ++m_.handlers;
        if (!d.waiting) {
            ++m_.unexplained;
            if (m_.unexplained_first.size() < GuestMatch::kKept) m_.unexplained_first.push_back({g.record, g.ts, g.vcpu, *v});
            return;
        }
        ++m_.explained;
        if (d.judged) ++m_.matched;
        d.waiting = false;
        d.in_handler = true;
        d.eoi_seen = d.eoi_early;
        if (d.eoi_early) ++m_.eoi_before_handler;
        d.entry_ts = g.ts.value();
        auto& dist = dist_[*v];
        dist.inject_to_entry.add(g.ts.value() - d.inject_ts);
        if (d.accept_ts) dist.accept_to_inject.add(d.inject_ts - *d.accept_ts);
    }

    const Trace& host_;
    const GuestTrace& guest_;
    VmId vm_;
    std::size_t gi_ = 0;
    std::unordered_map<std::uint32_t, int> apic_to_vcpu_;
    std::map<int, std::int64_t> first_guest_, last_guest_;  // vCPU → its first, last guest event
    std::int64_t guest_end_ = 0;
    std::map<int, PerVector> deliveries_;
    std::map<int, std::array<std::optional<std::int64_t>, kVectors>> accepted_;  // vCPU → vector → first accept since its injection
    std::map<std::pair<int, std::int32_t>, int> irq_vector_;  // (CPU, IRQ) → vector
    std::set<std::int32_t> configured_;                      // IRQs the guest's trace configured
    std::set<int> system_vectors_;                           // vectors of the guest's *_entry events
    std::map<int, Distributions> dist_;
    GuestMatch m_;
};

}  // namespace

GuestMatch match_guest(const Trace& host, const GuestTrace& guest, VmId vm) { return Matcher(host, guest, vm).run(); }

}  // namespace irqflow::replay
