#include "lifecycles.hpp"

#include "../model/model.hpp"

namespace irqflow::replay {

void Lifecycles::injected(const Event& e, const Effect& fx, const Model& m, const Evidence& ev) {
    if (!out_) return;
    {
        const auto& v = m.vcpu(fx.vcpu);
        const auto& x = ev.of(fx.vcpu, fx.vector);
        InterruptRecord ir;
        ir.vm = v.vm;
        ir.vcpu = v.id;
        ir.vector = fx.vector;
        if (x.pending_since) {  // else no accept since the last injection of it: none of its own seen
            ir.accept_record = x.accept_record;
            ir.accept_ts = x.accept_ts;
        }
        ir.inject_record = e.record;
        ir.inject_ts = e.ts.value();
        ir.nesting_depth = v.lapic.isr_count();
        ir.level = v.lapic.tmr().test(fx.vector);
        out_->push_back(ir);
        open_[static_cast<std::size_t>(fx.vcpu.value())][static_cast<std::size_t>(fx.vector)] = static_cast<std::uint32_t>(out_->size());
    }
}

void Lifecycles::eoi(const Event& e, const Effect& fx) {
    if (!out_) return;
    {
        auto& open = open_[static_cast<std::size_t>(fx.vcpu.value())][static_cast<std::size_t>(fx.vector)];
        if (open) {
            auto& ir = (*out_)[open - 1];
            ir.eoi_record = e.record;
            ir.eoi_ts = e.ts.value();
        }
        eoi_pending_path_[static_cast<std::size_t>(fx.vcpu.value())] = open;
        open = 0;
    }
}

void Lifecycles::eoi_path(VcpuSlot v, EoiPath p) {
    if (!out_) return;
    auto& k = eoi_pending_path_[static_cast<std::size_t>(v.value())];
    if (k) (*out_)[k - 1].eoi_path = p;
    k = 0;
}

}  // namespace irqflow::replay
