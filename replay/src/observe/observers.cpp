#include "observers.hpp"

namespace irqflow::replay {

Observers::Observers(const Model& m, const ReplayOptions& o, ReplayResult& r)
    : r_(r),
      coverage_(r.stats),
      evidence_(m.vcpu_count()),
      latency_(o.collect_latency),
      lifecycles_(m.vcpu_count(), o.collect_details ? &r.interrupts : nullptr),
      eoi_paths_(m.vcpu_count(), r.stats),
      ipis_(r.stats, o.collect_details ? &r.ipis : nullptr),
      pv_eoi_cf_(r.stats),
      pv_ipi_cf_(m, r.stats) {}

void Observers::resolved(const ResolvedEoi& r, const Model& m) {
    if (!r) return;
    lifecycles_.eoi_path(r.vcpu, r.path);
    pv_eoi_cf_.resolved(r, m);
}

// A handler per event kind; most kinds concern no observer.
void Observers::before(const Event& e, const Effect& fx, const Model& m) {
    const bool own = own_thread_kind(e.kind);
    coverage_.event(own ? fx.vcpu : kNoVcpu, fx.known);
    if (e.kind == EventKind::ApicIpi || e.kind == EventKind::Hypercall) pv_ipi_cf_.learn(e, m);
    if (!own) return;
    if (fx.vcpu == kNoVcpu) {
        coverage_.foreign(e);
        return;
    }
    resolved(eoi_paths_.before(e, fx), m);
    pv_ipi_cf_.before(e, fx.vcpu, m);
}

void Observers::after(const Event& e, const Effect& fx, const Model& m) {
    switch (e.kind) {
    case EventKind::Lost:
        coverage_.gap();
        eoi_paths_.lost();
        return;
    case EventKind::ApicAcceptIrq:
        if (fx.outcome != Outcome::Accepted) return;
        coverage_.accepted(fx);
        evidence_.accepted(e, fx);
        return;
    default: break;
    }
    if (fx.vcpu == kNoVcpu || !own_thread_kind(e.kind)) return;
    switch (e.kind) {
    case EventKind::InjVirq:
        coverage_.injection(fx, m);
        if (fx.outcome != Outcome::Injected && fx.outcome != Outcome::InjectedAutoEoi) return;
        latency_.injected(e, fx, evidence_);  // before the evidence moves on
        evidence_.injected(e, fx);
        if (fx.outcome == Outcome::Injected) lifecycles_.injected(e, fx, m, evidence_);
        return;
    case EventKind::Eoi:
        coverage_.eoi(fx);
        if (fx.outcome != Outcome::Eoi) return;
        latency_.eoi(e, fx, evidence_);
        evidence_.eoi(fx);
        lifecycles_.eoi(e, fx);
        resolved(eoi_paths_.eoi(fx), m);  // after lifecycles: the path may be known at once
        return;
    case EventKind::PvEoi: resolved(eoi_paths_.pv_eoi(fx), m); return;
    case EventKind::Entry: eoi_paths_.entry(fx); return;
    case EventKind::Exit: exits_.exit(e); return;
    case EventKind::Mmio: eoi_paths_.mmio(e, fx); return;
    case EventKind::ApicIpi:
        ipis_.icr_write();
        pv_ipi_cf_.icr_write(e, fx, m);
        return;
    case EventKind::Hypercall: ipis_.hypercall(m); return;
    case EventKind::HvSendIpi:
    case EventKind::HvSendIpiEx: ipis_.hv_ipi(); return;
    default: return;
    }
}

void Observers::finish_eois(const Model& m) {
    for (const auto& r : eoi_paths_.finish()) resolved(r, m);
}

void Observers::finish(const Model& m) {
    pv_ipi_cf_.finish(m);
    latency_.finish(r_.stats);
    exits_.finish(r_.stats);
    for (std::size_t i = 0; i < m.vcpu_count(); ++i) r_.final_state.push_back(m.state(VcpuSlot(static_cast<std::int32_t>(i))));
}

}  // namespace irqflow::replay
