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

namespace irqflow::replay {

class Observers {
public:
    Observers(const Model& m, const ReplayOptions& o, ReplayResult& r);
    const Evidence& evidence() const { return evidence_; }
    // Whether before/after do anything with this kind beyond what thread_event does.
    static constexpr bool handles(EventKind k) {
        switch (k) {
        case EventKind::Lost: case EventKind::ApicAcceptIrq: case EventKind::InjVirq: case EventKind::Eoi: case EventKind::PvEoi:
        case EventKind::Entry: case EventKind::Exit: case EventKind::Msr: case EventKind::Mmio: case EventKind::ApicIpi:
        case EventKind::Hypercall: case EventKind::HvSendIpi: case EventKind::HvSendIpiEx: return true;
        default: return false;
        }
    }
    // The whole of before + after for a kind handles() says nothing about, from the
    // vCPU's thread `v` (or none).
    void thread_event(const Event& e, VcpuSlot v, const Model& m) {
        coverage_.event(v, v != kNoVcpu && m.vcpu(v).synced);
        if (v != kNoVcpu) pv_ipi_cf_.before(e, v, m);
    }
    // Around Model::commit.
    void before(const Event& e, const Effect& fx, const Model& m);
    void after(const Event& e, const Effect& fx, const Model& m);
    // An IPI whose deliveries are all in.
    void on_ipi(const IpiSend& s) { ipis_.on_ipi(s); }
    // The end of the trace, in two steps: EOIs still undecided (before the model's
    // last IPIs complete), then everything else.
    void finish_eois(const Model& m);
    void finish(const Model& m);

private:
    void resolved(const ResolvedEoi& r, const Model& m);
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
};

}  // namespace irqflow::replay
