// vCPU and VM attribution in one pass, for a stream that is never read twice
// (capture/README.md, "Following a stream"). The same facts as the two-pass Attributor
// — a thread's kvm_entry/kvm_exit names its vCPU, accepts go to the owner of the APIC
// id they name, a vCPU's first EOI gives its APIC id, threads doing KVM work join the
// VM nearest in tid — learnt as events arrive. Learning runs ahead of attribution by
// the follower's look-ahead window, so an accept that precedes its destination's first
// entry (a boot's INIT/SIPI) still finds its vCPU.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "irqflow/capture/attribution.hpp"
#include "irqflow/capture/drop_windows.hpp"
#include "irqflow/capture/trace.hpp"

namespace irqflow {

class LiveAttribution {
public:
    // A vCPU that became known, or changed (its thread, its APIC id).
    struct Learnt {
        VmId vm;
        VcpuInfo vcpu;
    };
    // `t`: the names (for telling KVM work apart) and the VMs, kept up to date.
    explicit LiveAttribution(Trace& t) : t_(t), kvm_work_(t) {}
    // An event entering the look-ahead, in input order (Lost markers included): what
    // it teaches goes to `learnt`, a drop's start (an event index) to `drops`.
    void learn(const Event& e, std::vector<Learnt>& learnt, std::vector<std::size_t>& drops);
    // An event leaving it: its VM and vCPU from what is known by then.
    std::pair<VmId, VcpuId> owner(const Event& e);
    // The end of the stream: the warning the two-pass attribution gives when vCPUs
    // were inferred from APIC ids only.
    void end();

private:
    struct ThreadVm {
        VmId vm = kUnknownVm;
        VcpuId vcpu = kUnknownVcpu;
    };
    VcpuInfo* find(VmId vm, VcpuId id);
    VcpuInfo& add(VmId vm, VcpuInfo v);
    void bind_thread(std::int32_t tid, std::int32_t vcpu, std::vector<Learnt>& learnt);
    void by_apic(const Event& e, std::int64_t apic, std::vector<Learnt>& learnt);
    void vcpu_before_its_thread(const Event& e, std::int64_t apic, std::vector<Learnt>& learnt);
    void named_without_thread(const Event& e, VcpuId id, std::vector<Learnt>& learnt);
    VmId nearest_vm(std::int32_t tid) const;

    Trace& t_;
    KvmWork kvm_work_;
    std::unordered_map<std::int32_t, ThreadVm> thread_;  // vCPU threads, and KVM threads once placed
    std::unordered_set<std::int32_t> kvm_threads_;       // threads doing KVM work, not placed yet
    std::unordered_set<std::int32_t> eoi_seen_;          // threads whose first EOI was looked at
    ApicOwners vcpu_of_apic_;
    bool vcpu_threads_ = false;  // a thread named its vCPU
    bool inferred_ = false;      // vCPUs made from APIC ids alone
    DropWindowFinder drops_;
    std::pair<std::int32_t, VcpuId> last_naming_{INT32_MIN, kUnknownVcpu};  // (thread, vCPU) of the last event naming a vCPU
};

}  // namespace irqflow
