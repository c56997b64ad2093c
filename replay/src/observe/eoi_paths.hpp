// How each EOI reached KVM, read from the events around kvm_eoi on the vCPU's thread:
// kvm_pv_eoi right after it (PV EOI, or Hyper-V's EOI assist), the MSR write that
// carried it (x2APIC 0x80b, Hyper-V 0x40000070), or a kvm_mmio write to the APIC EOI
// register before it (xAPIC). Level EOIs first go on to the IOAPIC (kvm_ack_irq, a
// re-assertion), so only entries, exits, MSR writes, injections and the next EOI decide.
// Also the PV EOI counts: PV EOIs, the exits they saved, their share of real EOIs.
#pragma once
#include <array>
#include <vector>

#include "../model/model.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

// An EOI whose path became known (none: vcpu == kNoVcpu).
struct ResolvedEoi {
    VcpuSlot vcpu = kNoVcpu;
    EoiPath path = EoiPath::Other;
    explicit operator bool() const { return vcpu != kNoVcpu; }
};

class EoiPaths {
public:
    EoiPaths(std::size_t vcpus, ReplayStats& st) : state_(vcpus), st_(st) {}
    void vcpus(std::size_t n) { state_.resize(n); }  // more became known
    // The kinds of event that decide the path of an EOI before them: what follows an
    // EOI on its thread up to the next entry, exit, injection or EOI.
    static constexpr bool decides(EventKind k) {
        return k == EventKind::Msr || k == EventKind::Entry || k == EventKind::Exit || k == EventKind::InjVirq || k == EventKind::Eoi;
    }
    // Before the model applies an event of a deciding kind on the vCPU's own thread.
    ResolvedEoi before(const Event& e, const Effect& fx) {
        if (state_[static_cast<std::size_t>(fx.vcpu.value())].pending < 0) return {};
        return decide(e, fx);
    }
    // After the model applied them.
    ResolvedEoi eoi(const Effect& fx);
    ResolvedEoi pv_eoi(const Effect& fx);
    void entry(const Effect& fx) { state_[static_cast<std::size_t>(fx.vcpu.value())].mmio_eoi_write = false; }
    void mmio(const Event& e, const Effect& fx);
    // Lost events: what followed an EOI may be among them, its path undecided for good.
    void lost();
    // The end of the trace: EOIs still undecided get the path their surroundings show.
    std::vector<ResolvedEoi> finish();

private:
    ResolvedEoi decide(const Event& e, const Effect& fx);
    ResolvedEoi resolve(VcpuSlot v, EoiPath p);
    struct State {
        int pending = -1;           // vector of the EOI whose path is undecided, -1: none
        bool mmio_eoi_write = false;  // a kvm_mmio write to the EOI register since the last entry
    };
    std::vector<State> state_;
    ReplayStats& st_;
    std::array<std::uint64_t, kEoiPaths> by_path_{};
};

}  // namespace irqflow::replay
