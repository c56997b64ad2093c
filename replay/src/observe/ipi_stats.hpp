// IPIs: sends by kind, the ones judged complete, the exits PV IPI hypercalls saved,
// and each send with its destinations (ReplayResult::ipis, with collect_details).
#pragma once
#include <vector>

#include "../model/model.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

// The ICR accesses (exits) a send to `dests` costs without PV IPI, by the guest's APIC
// mode: x2APIC physical one MSR write per destination, x2APIC cluster (the guest was
// seen addressing logically) one per cluster; xAPIC an ICR read (Linux polls the busy
// bit before each send; seen before every ICR write in the xapic sample) and an
// ICR2+ICR pair, three exits per destination, or three in all when the guest addresses
// logically.
std::uint64_t icr_exits_for(const VmModel& vm, const ApicIdSet& dests);

class IpiStats {
public:
    IpiStats(ReplayStats& st, std::vector<IpiRecord>* records) : st_(st), records_(records) {}
    void icr_write() { ++st_.icr_ipis; }
    // A Hyper-V IPI hypercall (the model recorded its send).
    void hv_ipi(const Model& m);
    // A kvm_hypercall: a PV IPI when the model recorded a send for it.
    void hypercall(const Model& m);
    void on_ipi(const IpiSend& s);

private:
    ReplayStats& st_;
    std::vector<IpiRecord>* records_;  // null: not collected
};

}  // namespace irqflow::replay
