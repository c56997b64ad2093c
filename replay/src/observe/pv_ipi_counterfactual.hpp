// What PV IPI would have saved. Without it, Linux sends to a CPU mask as back-to-back
// ICR writes of one vector (one per destination, or per cluster), each an exit; one
// hypercall per 128-id window would do. A run of ICR writes with nothing but their own
// exits in between is one send when each destination appears once and the vector is
// one this guest sends to masks (seen with a shorthand, a multi-bit logical destination
// or a PV IPI hypercall somewhere in the trace); otherwise it is single sends in a row.
// xAPIC guests use the hypercall for every send (it replaces the ICR2+ICR pair, and the
// ICR read Linux does first to wait until the previous send left: each an exit, the
// read counted when the trace shows it), x2APIC guests only for several destinations.
#pragma once
#include <cstdint>
#include <vector>

#include "../model/model.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

class PvIpiCounterfactual {
public:
    PvIpiCounterfactual(const Model& m, ReplayStats& st) : groups_(m.vcpu_count()), mask_vectors_(m.vm_count()), st_(st) {}
    void vcpus(const Model& m) {  // more became known
        groups_.resize(m.vcpu_count());
        mask_vectors_.resize(m.vm_count());
    }
    // Every ICR write and hypercall: what the guest sends to masks.
    void learn(const Event& e, const Model& m);
    // The kinds that never end a run of ICR writes (the writes themselves and what their
    // exits bring along); exits and MSR accesses depend on which.
    static constexpr bool always_part_of_run(EventKind k) {
        return k == EventKind::Entry || k == EventKind::ApicIpi || k == EventKind::Apic || k == EventKind::Mmio ||
               k == EventKind::PageFault || k == EventKind::Other;
    }
    // Before the model applies an event of the vCPU's own thread: anything but the
    // writes and their exits ends the run.
    void before(const Event& e, VcpuSlot v, const Model& m) {
        const auto& g = groups_[static_cast<std::size_t>(v.value())];
        if (g.writes || g.unclaimed_polls) end_run_unless_part(e, v, m);
    }
    // After an ICR write of the vCPU.
    void icr_write(const Event& e, const Effect& fx, const Model& m);
    // After an xAPIC register access of the vCPU (kvm_apic): an ICR read is the poll
    // before a send.
    void apic_access(const Event& e, const Effect& fx);
    void finish(const Model& m);

private:
    // The ICR writes of one send in progress, per vCPU.
    struct Group {
        std::int64_t last_ts = 0;
        int vector = -1, dm = -1;
        ApicIdSet dests;
        int writes = 0;
        int polls = 0;            // writes preceded by an ICR read (xAPIC)
        int unclaimed_polls = 0;  // ICR reads not yet followed by their write
    };
    void close(Group& g, const VcpuModel& v, const Model& m);
    void end_run_unless_part(const Event& e, VcpuSlot v, const Model& m);
    std::vector<Group> groups_;
    std::vector<VectorSet> mask_vectors_;  // per VM: vectors the guest sends to several CPUs at once
    ReplayStats& st_;
};

}  // namespace irqflow::replay
