#include "eoi_paths.hpp"

#include "../model/registers.hpp"

namespace irqflow::replay {

ResolvedEoi EoiPaths::resolve(VcpuSlot v, EoiPath p) {
    ++by_path_[static_cast<std::size_t>(p)];
    state_[static_cast<std::size_t>(v.value())].pending = -1;
    return {v, p};
}

ResolvedEoi EoiPaths::decide(const Event& e, const Effect& fx) {
    EoiPath p = state_[static_cast<std::size_t>(fx.vcpu.value())].mmio_eoi_write ? EoiPath::XapicMmio : EoiPath::Other;
    if (e.kind == EventKind::Msr && e.get(slot::msr_write) == 1) {
        const auto ecx = e.get(slot::msr_ecx).value_or(0);
        if (ecx == apic::kMsrEoi) p = EoiPath::X2apicMsr;
        if (ecx == msr::kHvEoi) p = EoiPath::HypervMsr;
    }
    return resolve(fx.vcpu, p);
}

ResolvedEoi EoiPaths::eoi(const Effect& fx) {
    if (fx.outcome != Outcome::Eoi) return {};
    auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
    s.pending = fx.vector;
    return s.mmio_eoi_write ? resolve(fx.vcpu, EoiPath::XapicMmio) : ResolvedEoi{};
}

ResolvedEoi EoiPaths::pv_eoi(const Effect& fx) {
    ++st_.pv_eois;
    ++st_.exits_saved_pv_eoi;
    st_.exits_saved_hv_eoi_assist += fx.pv_eoi.hyperv_assist;
    const auto& s = state_[static_cast<std::size_t>(fx.vcpu.value())];
    return s.pending >= 0 && s.pending == fx.vector ? resolve(fx.vcpu, EoiPath::PvEoi) : ResolvedEoi{};
}

void EoiPaths::mmio(const Event& e, const Effect& fx) {
    const auto gpa = e.get(slot::mmio_gpa).value_or(0);
    if (e.get(slot::mmio_type) == slot::kMmioWrite && (gpa & apic::kMmioPageMask) == apic::kMmioBase && (gpa & apic::kMmioRegMask) == apic::kRegEoi)
        state_[static_cast<std::size_t>(fx.vcpu.value())].mmio_eoi_write = true;
}

void EoiPaths::lost() {
    for (auto& s : state_) s.pending = -1;
}

std::vector<ResolvedEoi> EoiPaths::finish() {
    std::vector<ResolvedEoi> out;
    for (std::size_t i = 0; i < state_.size(); ++i)
        if (state_[i].pending >= 0)
            out.push_back(resolve(VcpuSlot(static_cast<std::int32_t>(i)), state_[i].mmio_eoi_write ? EoiPath::XapicMmio : EoiPath::Other));
    for (int p = 0; p < kEoiPaths; ++p)
        if (by_path_[static_cast<std::size_t>(p)]) st_.eois_by_path[to_string(static_cast<EoiPath>(p))] = by_path_[static_cast<std::size_t>(p)];
    const auto real = st_.real_eois();
    st_.pv_eoi_hit_rate = real ? static_cast<double>(st_.pv_eois) / static_cast<double>(real) : 0.0;
    return out;
}

}  // namespace irqflow::replay
