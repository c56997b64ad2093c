#include "observers.hpp"

#include <algorithm>

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
      pv_ipi_cf_(m, r.stats),
      unsynced_(m.vcpu_count(), o.collect_details ? &r.unsynced : nullptr) {}

void Observers::vcpus(const Model& m) {
    const std::size_t n = m.vcpu_count();
    evidence_.vcpus(n);
    lifecycles_.vcpus(n);
    eoi_paths_.vcpus(n);
    pv_ipi_cf_.vcpus(m);
    unsynced_.vcpus(n);
}

void Observers::resolved(const ResolvedEoi& r, const Model& m) {
    if (!r) return;
    lifecycles_.eoi_path(r.vcpu, r.path);
    pv_eoi_cf_.resolved(r, m);
}

void Observers::injection(const Event& e, const Effect& fx, const Model& m) {
    coverage_.injection(fx, m);
    if (fx.outcome != Outcome::Injected && fx.outcome != Outcome::InjectedAutoEoi) return;
    latency_.injected(e, fx, evidence_);  // both before the evidence moves on: the accept
    if (fx.outcome == Outcome::Injected) lifecycles_.injected(e, fx, m, evidence_);  // still pending is this injection's
    evidence_.injected(e, fx);
}

void Observers::eoi(const Event& e, const Effect& fx, const Model& m) {
    coverage_.eoi(fx);
    if (fx.outcome != Outcome::Eoi) return;
    latency_.eoi(e, fx, evidence_);
    evidence_.eoi(e, fx);
    lifecycles_.eoi(e, fx);
    resolved(eoi_paths_.eoi(fx), m);  // after lifecycles: the path may be known at once
}

void Observers::finish_eois(const Model& m) {
    for (const auto& r : eoi_paths_.finish()) resolved(r, m);
}

void Observers::late_irr_write(const Event& e, const Effect& fx, const Model& m) {
    const auto& v = m.vcpu(fx.vcpu);
    const auto& mark = v.late_irr.mark();
    r_.late_irr_writes.push_back({v.vm, v.id, fx.vector, mark.accept_record, mark.first_inject_record, e.record});
}

void Observers::finish(const Model& m) {
    r_.stats.clock_skew_bound_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(m.clock_skew().bound_ns(), 0));
    r_.stats.clock_skew_pairs = m.clock_skew().pairs();
    pv_ipi_cf_.finish(m);
    latency_.finish(r_.stats);
    exits_.finish(r_.stats);
    unsynced_.finish(m);
    for (std::size_t i = 0; i < m.vcpu_count(); ++i) r_.final_state.push_back(m.state(VcpuSlot(static_cast<std::int32_t>(i))));
}

}  // namespace irqflow::replay
