// Host deliveries matched to guest handlers (replay/README.md, "Guest handlers").
//
// An injection of vector V on vCPU c (not soft, not a re-injection: that is the same
// delivery again) waits for the guest's handler of V on c: `V`'s *_entry for a system
// vector, or `irq_handler_entry` of the IRQ whose vector on that CPU is V (the guest's
// vector_config/update say which: vectors are per CPU). It is unhandled when another
// injection of V on c, or the end, comes first — judged only if the guest recorded
// anything on c meanwhile (else its trace has a hole there). A handler entry with no
// delivery of its vector waiting on its vCPU is unexplained — judged only where the
// host's trace would show that delivery (see entry()).
#include "guest_tracker.hpp"

#include <algorithm>
#include <cstdint>

namespace irqflow::replay {

GuestTracker::GuestTracker(const Trace& host, const GuestTrace& guest, VmId vm, Sink sink)
    : guest_(guest), vm_(vm), sink_(std::move(sink)), recording_(host.meta.format.rfind("trace.dat", 0) == 0) {
    for (const auto& v : host.vms)
        if (v.id == vm)
            for (const auto& c : v.vcpus) apic_to_vcpu_[c.apic.value()] = c.id.value();
    for (const GuestEvent& g : guest.events)
        if (g.kind == GuestEventKind::VectorEntry && g.name_id < guest.names.size())
            system_vectors_.try_emplace(g.vector.value(), guest.names[g.name_id]);
    // Where the guest's trace begins on each CPU: a recording's per-CPU buffers each
    // begin where they begin (one that overflowed kept only its last pages); a report
    // excerpt is cut by time, so every CPU begins at its first line.
    const bool excerpt = guest.meta.format.rfind("trace.dat", 0) != 0;
    std::int64_t first = INT64_MAX;
    for (const GuestEvent& g : guest.events)
        if (g.aligned) {
            first = std::min(first, g.ts.value());
            first_guest_.try_emplace(g.vcpu.value(), excerpt ? first : g.ts.value());
            guest_end_ = g.ts.value();
        }
}

// Whether the guest was tracing on this vCPU at ts.
bool GuestTracker::traced(int vcpu, std::int64_t ts) const {
    const auto it = first_guest_.find(vcpu);
    return it != first_guest_.end() && ts >= it->second && ts <= guest_end_;
}

// Whether the guest's trace has a handler event for vector v on CPU c now: one of its
// system vectors' entry events, or a device IRQ's vector there (or a legacy IRQ's).
bool GuestTracker::handler_traced(int c, int v) const {
    return system_vectors_.count(v) || vectors_.irq_at(c, v);
}

std::string GuestTracker::handler_name(int c, int v) const {
    if (const auto it = system_vectors_.find(v); it != system_vectors_.end()) return it->second;
    auto irq = [this](std::int32_t n) {
        const auto name = guest_.irq_names.find(n);
        return "irq_handler_entry of IRQ " + std::to_string(n) + (name == guest_.irq_names.end() ? "" : " (" + name->second + ")");
    };
    if (const auto n = vectors_.irq_at(c, v)) return irq(*n);
    return "a handler";
}

std::optional<int> GuestTracker::vcpu_of_apic(std::int64_t apic) const {
    const auto it = apic_to_vcpu_.find(static_cast<std::uint32_t>(apic));
    if (it == apic_to_vcpu_.end()) return std::nullopt;
    return it->second;
}

void GuestTracker::ended(int vcpu, int vector, Delivery& d, HostAt until, bool at_end) {
    d.waiting = false;
    if (!d.judged || !d.injected) return;
    const auto found = cpus_.find(vcpu);
    const GuestCpu cpu = found == cpus_.end() ? GuestCpu{} : found->second;
    if (cpu.seen == d.guest_seen) {  // nothing on that CPU since: a hole, or the guest's trace's end
        --m_.injections;
        if (!at_end) {
            ++m_.silent;
            if (d.eoi_early) ++m_.silent_eoied;
        }
        return;
    }
    ++m_.unhandled;
    GuestOutcome o{.kind = GuestOutcome::Kind::Unhandled, .vcpu = VcpuId(vcpu), .vector = vector, .handler = handler_name(vcpu, vector)};
    o.injection = d.injection;
    o.until = until;
    o.at_end = at_end;
    o.eoi = d.eoi;
    o.guest_last = cpu.last;
    o.guest_last_ts = cpu.last_ts;
    sink_(o);
}

void GuestTracker::on_inject(const Event& e) {
    const int c = e.vcpu.value();
    if (!e.has(slot::inj_vector)) return;
    const auto v = e.f[slot::inj_vector];
    if (c < 0 || v < 0 || v >= kVectors || e.f[slot::inj_soft] || e.f[slot::inj_reinjected]) return;
    injecting_.insert(c);
    auto& accepted = accepted_[c][static_cast<std::size_t>(v)];
    const std::optional<std::int64_t> accept = accepted;
    accepted.reset();
    // one injected before the guest traced still explains the handler that follows
    Delivery& d = deliveries_[c][static_cast<std::size_t>(v)];
    if (d.waiting) ended(c, static_cast<int>(v), d, {e.record, e.ts}, false);
    d = Delivery{};
    d.judged = traced(c, e.ts.value());
    if (d.judged && !handler_traced(c, static_cast<int>(v))) {
        d.judged = false;
        ++m_.untraced;
        m_.untraced_vectors.insert(static_cast<int>(v));
    }
    if (d.judged) ++m_.injections;
    d.waiting = d.injected = true;
    d.injection = {e.record, e.ts};
    const auto cpu = cpus_.find(c);  // (looked up, not inserted: host_first_ asks whether the guest showed it yet)
    d.guest_seen = cpu == cpus_.end() ? 0 : cpu->second.seen;
    d.lost = lost_;
    d.accept_ts = accept;
}

void GuestTracker::on_host(const Event& e) {
    if (e.vcpu != kUnknownVcpu && host_vcpus_.insert(e.vcpu.value()).second && recording_ && !cpus_.count(e.vcpu.value()))
        host_first_.insert(e.vcpu.value());
    switch (e.kind) {
    case EventKind::ApicAcceptIrq: {
        if (!e.has(slot::accept_apicid) || !e.has(slot::accept_vec)) return;  // a record cut short
        const auto c = vcpu_of_apic(e.f[slot::accept_apicid]);
        const auto v = e.f[slot::accept_vec];
        if (c && v >= 0 && v < kVectors && !accepted_[*c][static_cast<std::size_t>(v)]) accepted_[*c][static_cast<std::size_t>(v)] = e.ts.value();
        return;
    }
    case EventKind::InjVirq: on_inject(e); return;
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
            d.eoi = {e.record, e.ts};
            return;
        }
        if (d.eoi_seen) return;
        d.eoi_seen = true;
        d.eoi = {e.record, e.ts};
        dist_[static_cast<int>(v)].entry_to_eoi.add(e.ts.value() - d.entry_ts);
        ++(d.in_handler ? m_.eoi_inside_handler : m_.eoi_after_handler);
        return;
    }
    default: return;
    }
}

// The vector a guest handler event is about on its CPU, if known.
std::optional<int> GuestTracker::vector_of(const GuestEvent& g) const {
    switch (g.kind) {
    case GuestEventKind::VectorEntry:
    case GuestEventKind::VectorExit: return g.vector.value();
    case GuestEventKind::IrqEntry:
    case GuestEventKind::IrqExit: return vectors_.vector_of(g.vcpu.value(), g.irq);
    default: return std::nullopt;
    }
}

void GuestTracker::on_guest(const GuestEvent& g) {
    const int c = g.vcpu.value();
    GuestCpu& cpu = cpus_[c];
    ++cpu.seen;
    cpu.last = g.record;
    cpu.last_ts = g.ts;
    if (g.kind == GuestEventKind::VectorConfig || g.kind == GuestEventKind::VectorUpdate) return vectors_.apply(g);
    const bool is_entry = g.kind == GuestEventKind::VectorEntry || g.kind == GuestEventKind::IrqEntry;
    const auto v = vector_of(g);
    if (!v) {
        if (is_entry) ++m_.unmapped;
        return;
    }
    if (is_entry) return entry(g, *v);
    Delivery& d = deliveries_[c][static_cast<std::size_t>(*v)];
    if (d.in_handler) {
        d.in_handler = false;
        dist_[*v].entry_to_exit.add(g.ts.value() - d.entry_ts);
    }
}

void GuestTracker::entry(const GuestEvent& g, int v) {
    const int c = g.vcpu.value();
    Delivery& d = deliveries_[c][static_cast<std::size_t>(v)];
    if (d.in_handler && g.kind == GuestEventKind::IrqEntry) return;  // the IRQ's next handler (shared) in the same run
    ++m_.handlers;
    // On a vCPU whose interrupts the host never injected (APICv/AVIC post them), the
    // accept is the delivery.
    auto& accepted = accepted_[c][static_cast<std::size_t>(v)];
    if (!d.waiting && accepted && !injecting_.count(c)) {
        d = Delivery{};
        d.waiting = true;
        d.accept_ts = accepted;
        d.lost = lost_;
        accepted.reset();
        ++m_.explained_by_accept;
    }
    // Judged where the host's trace would show the delivery: it showed an earlier one of
    // the vector there (an excerpt may begin after the one this handler is for), or it is
    // a recording that showed the vCPU before the guest's trace began on it; and it lost
    // nothing since.
    const bool judged = !host_over_ && d.lost == lost_ && (d.injection.record || host_first_.count(c));
    GuestOutcome o{.vcpu = g.vcpu, .vector = v, .handler = g.name_id < guest_.names.size() ? guest_.names[g.name_id] : std::string()};
    if (g.kind == GuestEventKind::IrqEntry) {
        const auto name = guest_.irq_names.find(g.irq);
        o.handler += " of IRQ " + std::to_string(g.irq) + (name == guest_.irq_names.end() ? "" : " (" + name->second + ")");
        if (const auto by = vectors_.configured_by(c, g.irq)) {
            o.mapped = true;
            o.mapped_by = *by;
        }
    }
    o.injection = d.injection;
    o.guest_record = g.record;
    o.guest_ts = g.ts;
    o.host_before = last_host_;
    if (!d.waiting) {
        if (!judged) {
            ++m_.handlers_not_judged;
            return;
        }
        ++m_.unexplained;
        o.kind = GuestOutcome::Kind::Unexplained;
        o.previous_handler = d.handler;
        for (int w = 0; w < kVectors; ++w) {
            const Delivery& x = deliveries_[c][static_cast<std::size_t>(w)];
            if (x.waiting && x.injected && (o.waiting_vector < 0 || x.injection.record > o.waiting_injection.record)) {
                o.waiting_vector = w;
                o.waiting_injection = x.injection;
            }
        }
        sink_(o);
        return;
    }
    ++m_.explained;
    if (judged) {
        o.kind = GuestOutcome::Kind::Explained;
        sink_(o);
    }
    if (d.judged && d.injected) {
        ++m_.matched;
        o.kind = GuestOutcome::Kind::Handled;
        sink_(o);
    }
    d.waiting = false;
    d.in_handler = true;
    d.handler = g.record;
    d.eoi_seen = d.eoi_early;
    if (d.eoi_early) ++m_.eoi_before_handler;
    d.entry_ts = g.ts.value();
    auto& dist = dist_[v];
    if (d.injected) dist.inject_to_entry.add(g.ts.value() - d.injection.ts.value());
    if (d.accept_ts && d.injected) dist.accept_to_inject.add(d.injection.ts.value() - *d.accept_ts);
}

void GuestTracker::finish() {
    host_over_ = true;
    while (gi_ < guest_.events.size() && guest_.events[gi_].aligned) on_guest(guest_.events[gi_++]);
    // What still waits never got its handler (unless the guest's trace ended first on its CPU).
    for (auto& [vcpu, ds] : deliveries_)
        for (int v = 0; v < kVectors; ++v)
            if (ds[static_cast<std::size_t>(v)].waiting) ended(vcpu, v, ds[static_cast<std::size_t>(v)], last_host_, true);
    for (auto& [v, d] : dist_) {
        GuestLatency& l = m_.latency[v];
        l.accept_to_inject = d.accept_to_inject.summary();
        l.inject_to_entry = d.inject_to_entry.summary();
        l.entry_to_exit = d.entry_to_exit.summary();
        l.entry_to_eoi = d.entry_to_eoi.summary();
    }
}

}  // namespace irqflow::replay
