// What PV EOI would have saved: an EOI that exited (x2APIC MSR, xAPIC MMIO, Hyper-V
// MSR) while the arming rule would have armed PV EOI at the last entry is an exit PV
// EOI would have avoided. Meaningful on captures with PV EOI off (`predict`).
#pragma once
#include "../model/model.hpp"
#include "eoi_paths.hpp"

namespace irqflow::replay {

class PvEoiCounterfactual {
public:
    explicit PvEoiCounterfactual(ReplayStats& st) : st_(st) {}
    void resolved(const ResolvedEoi& r, const Model& m) {
        if (r.path != EoiPath::PvEoi && r.path != EoiPath::Other && m.vcpu(r.vcpu).pv_eoi.would_arm()) ++st_.predicted_pv_eoi_saved;
    }

private:
    ReplayStats& st_;
};

}  // namespace irqflow::replay
