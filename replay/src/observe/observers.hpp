// The observers: statistics and side outputs that read the model and never write it.
// Called by the engine in a fixed order around each event (replay/README.md,
// "Structure"); their results land in one ReplayResult.
#pragma once
#include "../model/model.hpp"
#include "coverage.hpp"
#include "eoi_paths.hpp"
#include "evidence.hpp"
#include "exit_stats.hpp"
#include "ipi_stats.hpp"
#include "latency.hpp"
#include "lifecycles.hpp"
#include "pv_eoi_counterfactual.hpp"
#include "pv_ipi_counterfactual.hpp"
#include "unsynced_spans.hpp"

namespace irqflow::replay {

class Observers {
public:
    Observers(const Model& m, const ReplayOptions& o, ReplayResult& r);
    const Evidence& evidence() const { return evidence_; }
    // Around Model::commit, per event kind (compiled per kind: most kinds concern no
    // observer beyond the counts).
    template <EventKind K>
    [[gnu::always_inline]] void before(const Event& e, const Effect& fx, const Model& m) {
        constexpr bool own = own_thread_kind(K);
        coverage_.event(own ? fx.vcpu : kNoVcpu, fx.known);
        unsynced_.event(own ? fx.vcpu : kNoVcpu, fx.known, e.ts.value(), m);
        if constexpr (K == EventKind::ApicIpi || K == EventKind::Hypercall) pv_ipi_cf_.learn(e, m);
        if constexpr (own) {
            if (fx.vcpu == kNoVcpu) {
                if constexpr (K == EventKind::InjVirq || K == EventKind::Eoi) coverage_.foreign(e);
                return;
            }
            if constexpr (EoiPaths::decides(K))
                if (const auto r = eoi_paths_.before(e, fx)) resolved(r, m);
            if constexpr (!PvIpiCounterfactual::always_part_of_run(K)) pv_ipi_cf_.before(e, fx.vcpu, m);
            if constexpr (K == EventKind::InjVirq)
                if (fx.late_irr) late_irr_write(e, fx, m);
        }
    }
    template <EventKind K>
    [[gnu::always_inline]] void after(const Event& e, const Effect& fx, const Model& m) {
        if constexpr (K == EventKind::Lost) {
            coverage_.gap();
            eoi_paths_.lost();
        } else if constexpr (K == EventKind::ApicAcceptIrq) {
            if (fx.outcome != Outcome::Accepted) return;
            coverage_.accepted(e, fx, m);
            evidence_.accepted(e, fx);
        } else if constexpr (own_thread_kind(K)) {
            if (fx.vcpu == kNoVcpu) return;
            if constexpr (K == EventKind::InjVirq) injection(e, fx, m);
            if constexpr (K == EventKind::Eoi) eoi(e, fx, m);
            if constexpr (K == EventKind::PvEoi) resolved(eoi_paths_.pv_eoi(fx), m);
            if constexpr (K == EventKind::Entry) eoi_paths_.entry(fx);
            if constexpr (K == EventKind::Exit) exits_.exit(e);
            if constexpr (K == EventKind::Mmio) eoi_paths_.mmio(e, fx);
            if constexpr (K == EventKind::Apic) pv_ipi_cf_.apic_access(e, fx);
            if constexpr (K == EventKind::ApicIpi) {
                ipis_.icr_write();
                pv_ipi_cf_.icr_write(e, fx, m);
            }
            if constexpr (K == EventKind::Hypercall) ipis_.hypercall(m);
            if constexpr (K == EventKind::HvSendIpi || K == EventKind::HvSendIpiEx) ipis_.hv_ipi(m);
        }
    }
    // The model gained vCPUs (a live stream revealed them): per-vCPU state for them too.
    void vcpus(const Model& m);
    // An IPI whose deliveries are all in.
    void on_ipi(const IpiSend& s) { ipis_.on_ipi(s); }
    // The end of the trace, in two steps: EOIs still undecided (before the model's
    // last IPIs complete), then everything else.
    void finish_eois(const Model& m);
    void finish(const Model& m);

private:
    void resolved(const ResolvedEoi& r, const Model& m);
    void late_irr_write(const Event& e, const Effect& fx, const Model& m);
    void injection(const Event& e, const Effect& fx, const Model& m);
    void eoi(const Event& e, const Effect& fx, const Model& m);
    ReplayResult& r_;
    Coverage coverage_;
    Evidence evidence_;
    LatencySamples latency_;
    Lifecycles lifecycles_;
    EoiPaths eoi_paths_;
    ExitStats exits_;
    IpiStats ipis_;
    PvEoiCounterfactual pv_eoi_cf_;
    PvIpiCounterfactual pv_ipi_cf_;
    UnsyncedSpans unsynced_;
};

}  // namespace irqflow::replay
