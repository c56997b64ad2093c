// vCPU and VM attribution in two passes over the events (capture/README.md, "vCPU
// attribution"): learn() sees every event once in order, finish() rebuilds the VMs, then
// owner() names each event's VM and vCPU. State is per thread and per vCPU, never per
// event, so a trace.dat can be attributed while it streams past twice (stream_trace).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "irqflow/capture/drop_windows.hpp"
#include "irqflow/capture/trace.hpp"

namespace irqflow {

// (VM, APIC id) → the vCPU owning it; the first vCPU wins, as in KVM's map.
using ApicOwners = std::map<std::pair<std::int32_t, std::int64_t>, VcpuId>;

// The vCPU an event of a thread in `vm` running `thread_vcpu` concerns: an accept's
// destination (whoever sent it), the vCPU a Hyper-V SynIC or timer event names, else
// the thread's own. Both attributions (two-pass and live) decide it here.
VcpuId event_vcpu(const Event& e, VmId vm, VcpuId thread_vcpu, const ApicOwners& owners);

// KVM's default vCPU id space on x86 (KVM_MAX_VCPU_IDS): a larger APIC id in an accept,
// a larger id an event names, is not made a vCPU of its own.
inline constexpr std::int64_t kMaxInferredApicId = 4095;

// The kinds whose APIC id field names a vCPU: an accept (the destination's), an EOI (the
// EOI-ing vCPU's own, which ties its thread to it).
inline bool is_accept(EventKind k) { return k == EventKind::ApicAcceptIrq || k == EventKind::ApicvAcceptIrq; }
inline bool is_eoi(EventKind k) { return k == EventKind::Eoi || k == EventKind::PvEoi; }

// The vCPU an event names in a field of its own (a Hyper-V SynIC or timer event's
// vcpu_id, kvm_wait_lapic_expire's, kvm_page_fault's, an Other event's
// slot::other_vcpu_id), if it names one in KVM's vCPU id space; names_vcpu: whether
// events of this kind may. (Inline: owner() asks it of every event.)
inline bool names_vcpu(EventKind k) {
    return k == EventKind::HvSynicSetIrq || k == EventKind::HvSynicSendEoi || k == EventKind::WaitLapicExpire || k == EventKind::PageFault ||
           k == EventKind::Other;
}
inline std::optional<VcpuId> named_vcpu(const Event& e) {
    static_assert(slot::other_vcpu_id == 0);  // slot 0 in every kind that names one
    if (!names_vcpu(e.kind)) return std::nullopt;
    if (const auto v = e.get(0); v && *v >= 0 && *v <= kMaxInferredApicId) return VcpuId(static_cast<std::int32_t>(*v));
    return std::nullopt;
}

// Whether an event is KVM work (a known kind, or a name starting "kvm"): only threads
// doing KVM work belong to a VM, not every process traced alongside. Caches by name id.
class KvmWork {
public:
    explicit KvmWork(const Trace& names) : names_(names) {}
    bool operator()(EventKind kind, std::uint16_t name_id);
    bool operator()(const Event& e) { return (*this)(e.kind, e.name_id); }

private:
    const Trace& names_;
    std::vector<signed char> by_name_;  // by name id: -1 not looked at yet
};

class Attributor {
public:
    // The one field slot learn() reads of an event of this kind, or -1 (it reads only
    // kind, thread, CPU and name); whether it reads one. Whether owner() reads fields.
    static int learnt_slot(EventKind k);
    static bool learns_fields(EventKind k);
    static bool owner_reads_fields(EventKind k);
    // What learn() reads of an event (its learnt slot, if present).
    static EventHead head_of(const Event& e);

    // `names` resolves name ids (the trace being attributed).
    explicit Attributor(const Trace& names) : kvm_work_(names) {}
    // Moved, never copied (learn() keeps a pointer into by_apic_, whose nodes a move keeps).
    Attributor(Attributor&&) = default;
    Attributor(const Attributor&) = delete;
    Attributor& operator=(const Attributor&) = delete;
    // Pass 1, every event in order (Lost markers included), as a head: kind, tid, cpu,
    // name_id and the learnt slot's value.
    void learn(const EventHead& e);
    void learn(const Event& e) { learn(head_of(e)); }
    // Learns what `later` learnt from the events right after those this one saw (a
    // trace read in parts, each learnt by an Attributor of its own), as if this one had
    // gone on to see them.
    void append(const Attributor& later);
    // Fills t.vms (and a warning when vCPUs were inferred) and t.drop_window_starts.
    void finish(Trace& t);
    // Pass 2: the VM and vCPU of an event (fields needed when owner_reads_fields(kind)).
    std::pair<VmId, VcpuId> owner(const Event& e);

private:
    struct ThreadVm {
        VmId vm = kUnknownVm;
        VcpuId vcpu = kUnknownVcpu;
    };
    void learn_apic(std::int64_t apic, Tid eoi_tid);

    KvmWork kvm_work_;
    // learnt
    std::unordered_map<std::int32_t, std::int32_t> vcpu_of_tid_;  // the first vCPU id a thread's entry/exit names
    std::vector<std::int32_t> kvm_threads_;                       // threads doing KVM work, in order of appearance
    std::unordered_set<std::int32_t> kvm_thread_seen_;
    std::unordered_map<std::int32_t, std::int64_t> eoi_apic_of_tid_;  // the APIC id of a thread's first EOI
    std::map<std::int64_t, VcpuInfo> by_apic_;  // no entry/exit at all: vCPUs by the APIC ids accepts and EOIs name
    std::set<std::int32_t> injectors_;  // threads that inject
    std::int32_t last_injector_ = INT32_MIN;
    DropWindowFinder drops_;
    std::int32_t last_learnt_tid_ = INT32_MIN;
    std::set<std::pair<std::int32_t, std::int32_t>> named_by_tid_;  // (thread, a vCPU id its events name)
    std::pair<std::int32_t, VcpuId> last_naming_{INT32_MIN, kUnknownVcpu};
    // A thread's events come in runs: the last thread already in vcpu_of_tid_ (and in
    // eoi_apic_of_tid_), and the last APIC id's entry in by_apic_, spare a lookup per
    // entry, exit, accept and EOI of the run (each only ever inserts its first value).
    std::int32_t last_vcpu_tid_ = INT32_MIN, last_eoi_tid_ = INT32_MIN;
    std::int64_t last_apic_ = -1;
    VcpuInfo* last_apic_info_ = nullptr;
    // for owner()
    std::unordered_map<std::int32_t, ThreadVm> thread_;
    ApicOwners vcpu_of_apic_;
    std::int32_t last_tid_ = INT32_MIN;
    const ThreadVm* last_ = nullptr;
};

}  // namespace irqflow
