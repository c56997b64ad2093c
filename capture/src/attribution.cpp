// vCPU and VM attribution (capture/README.md, "vCPU attribution").
//
// A vCPU is a host thread: kvm_entry/kvm_exit name the vCPU they run, and everything
// else that thread emits belongs to that vCPU. kvm_apic_accept_irq is the exception:
// it names the destination APIC id and may be emitted by a sender vCPU, an I/O thread
// or a timer, so it goes to the vCPU owning that APIC id.
//
// Neither trace.dat nor report text records thread groups, so VMs are rebuilt from
// thread ids: QEMU starts its vCPU threads in index order, so in tid order a new VM
// begins whenever the vCPU index does not increase. Threads that never enter a guest
// (I/O threads) join the VM whose vCPU threads are closest in tid.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "irqflow/capture/drop_windows.hpp"
#include "irqflow/capture/readers.hpp"

namespace irqflow {
namespace {

// KVM's default vCPU id space on x86 (KVM_MAX_VCPU_IDS): a larger APIC id in an
// accept is not made a vCPU of its own.
constexpr std::int64_t kMaxInferredApicId = 4095;

struct ThreadVm {
    VmId vm = kUnknownVm;
    VcpuId vcpu = kUnknownVcpu;
};

std::optional<std::int64_t> own_vcpu_id(const Event& e) {
    if (e.kind == EventKind::Entry) return e.get(slot::entry_vcpu_id);
    if (e.kind == EventKind::Exit) return e.get(slot::exit_vcpu_id);
    return std::nullopt;
}

// vCPUs when no thread names the vCPU it runs: one per APIC id an accept or EOI names
// (vCPU id = APIC id, as KVM assigns them by default). A thread that EOIs with an APIC
// id runs that vCPU (EOIs run on the vCPU's own thread); so does the only thread that
// injects when the accepts name a single APIC id. The others never ran in the excerpt
// (no thread: Tid -1).
std::vector<VcpuInfo> vcpus_from_apic_ids(const Trace& trace) {
    std::map<std::int64_t, VcpuInfo> by_apic;
    std::set<std::int32_t> injectors;
    for (const auto& e : trace.events) {
        std::optional<std::int64_t> apic;
        if (e.kind == EventKind::ApicAcceptIrq || e.kind == EventKind::ApicvAcceptIrq) apic = e.get(slot::accept_apicid);
        if (e.kind == EventKind::Eoi || e.kind == EventKind::PvEoi) apic = e.get(slot::eoi_apicid);
        if (e.kind == EventKind::InjVirq && e.tid.value() >= 0) injectors.insert(e.tid.value());
        if (!apic || *apic < 0 || *apic > kMaxInferredApicId) continue;
        auto& v = by_apic[*apic];
        v.id = VcpuId(static_cast<std::int32_t>(*apic));
        v.apic = ApicId(static_cast<std::uint32_t>(*apic));
        v.apic_from_trace = true;
        if ((e.kind == EventKind::Eoi || e.kind == EventKind::PvEoi) && v.tid.value() < 0) v.tid = e.tid;
    }
    if (by_apic.size() == 1 && injectors.size() == 1 && by_apic.begin()->second.tid.value() < 0)
        by_apic.begin()->second.tid = Tid(*injectors.begin());
    std::vector<VcpuInfo> out;
    std::set<std::int32_t> tids;
    for (auto& [apic, v] : by_apic) {
        if (v.tid.value() >= 0 && !tids.insert(v.tid.value()).second) v.tid = Tid(-1);  // one thread, one vCPU
        out.push_back(v);
    }
    return out;
}

}  // namespace

void attribute(Trace& trace) {
    // 1. vCPU threads.
    std::map<std::int32_t, std::int32_t> vcpu_of_tid;  // ordered by tid
    const EventStore& events = trace.events;
    std::unordered_map<std::int32_t, bool> seen_tid;  // one vCPU id per thread: its first entry/exit names it
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventKind k = events.kind(i);
        if (k != EventKind::Entry && k != EventKind::Exit) continue;
        const std::int32_t tid = events.tid(i).value();
        if (!seen_tid.emplace(tid, true).second) continue;
        if (auto id = own_vcpu_id(events[i])) vcpu_of_tid.emplace(tid, static_cast<std::int32_t>(*id));
        else seen_tid.erase(tid);  // a record without the field: a later one may name it
    }

    // 1b. An excerpt without kvm_entry/kvm_exit (a hang report pasting the accepts that
    // repeat) still names its vCPUs: by the APIC ids accepts and EOIs carry.
    std::vector<VcpuInfo> inferred;
    if (vcpu_of_tid.empty()) inferred = vcpus_from_apic_ids(trace);

    // 2. VMs from tid order.
    trace.vms.clear();
    std::unordered_map<std::int32_t, ThreadVm> thread;
    std::int32_t prev = -1;
    for (auto [tid, vcpu] : vcpu_of_tid) {
        if (trace.vms.empty() || vcpu <= prev) {
            VmInfo vm;
            vm.id = VmId(static_cast<std::int32_t>(trace.vms.size()));
            trace.vms.push_back(vm);
        }
        prev = vcpu;
        auto& vm = trace.vms.back();
        vm.vcpus.push_back({VcpuId(vcpu), Tid(tid), ApicId(static_cast<std::uint32_t>(vcpu)), false});
        thread[tid] = {vm.id, VcpuId(vcpu)};
    }

    if (!inferred.empty()) {
        trace.meta.warnings.push_back("no kvm_entry/kvm_exit: " + std::to_string(inferred.size()) +
                                      " vCPU(s) inferred from the APIC ids that accepts and EOIs name (vCPU id = APIC id)");
        VmInfo vm;
        vm.id = VmId(0);
        vm.vcpus = inferred;
        for (const auto& v : inferred)
            if (v.tid.value() >= 0) thread[v.tid.value()] = {vm.id, v.id};
        trace.vms.push_back(vm);
    }

    // 3. Other threads join the VM of the vCPU thread nearest in tid: a binary search
    // in the vCPU threads sorted by tid (a scan of all vCPUs per thread was quadratic).
    std::vector<std::pair<std::int32_t, VmId>> by_tid;
    for (const auto& vm : trace.vms)
        for (const auto& v : vm.vcpus) by_tid.emplace_back(v.tid.value(), vm.id);
    std::sort(by_tid.begin(), by_tid.end());
    auto nearest_vm = [&](std::int32_t tid) -> VmId {
        if (by_tid.empty()) return kUnknownVm;
        auto it = std::lower_bound(by_tid.begin(), by_tid.end(), std::pair{tid, VmId(INT32_MIN)});
        if (it == by_tid.end()) return std::prev(it)->second;
        if (it == by_tid.begin()) return it->second;
        const auto below = std::prev(it);
        // ties go to the lower tid, as the scan in vCPU order did for equal distances
        return std::int64_t{it->first} - tid < std::int64_t{tid} - below->first ? it->second : below->second;
    };
    // Only threads doing KVM work belong to a VM (not every process traced alongside).
    std::vector<bool> kvm_name(trace.name_count());
    for (std::size_t i = 0; i < kvm_name.size(); ++i) kvm_name[i] = trace.name(static_cast<std::uint16_t>(i)).rfind("kvm", 0) == 0;
    std::int32_t last_tid = INT32_MIN;  // events come in runs per thread: skip repeated lookups
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventKind kind = events.kind(i);
        const std::int32_t tid = events.tid(i).value();
        if (kind == EventKind::Lost || tid < 0 || tid == last_tid) continue;
        if (kind == EventKind::Other && !kvm_name[events.name_id(i)]) continue;
        last_tid = tid;
        if (thread.count(last_tid)) continue;
        ThreadVm tv{nearest_vm(tid), kUnknownVcpu};
        thread[tid] = tv;
        if (tv.vm != kUnknownVm) trace.vms[static_cast<std::size_t>(tv.vm.value())].other_threads.push_back(Tid(tid));
    }

    // 4. APIC ids learnt from EOIs, which always run on the vCPU's own thread.
    std::map<std::pair<std::int32_t, std::int32_t>, VcpuInfo*> vcpu_info;  // (vm, vcpu)
    for (auto& vm : trace.vms)
        for (auto& v : vm.vcpus) vcpu_info.emplace(std::pair{vm.id.value(), v.id.value()}, &v);
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events.kind(i) != EventKind::Eoi && events.kind(i) != EventKind::PvEoi) continue;
        const Event e = events[i];
        auto it = thread.find(e.tid.value());
        auto apic = e.get(slot::eoi_apicid);
        if (it == thread.end() || it->second.vcpu == kUnknownVcpu || !apic) continue;
        auto v = vcpu_info.find({it->second.vm.value(), it->second.vcpu.value()});
        if (v != vcpu_info.end() && !v->second->apic_from_trace) {
            v->second->apic = ApicId(static_cast<std::uint32_t>(*apic));
            v->second->apic_from_trace = true;
        }
    }

    // 5. Stamp every event.
    std::map<std::pair<std::int32_t, std::int64_t>, VcpuId> by_apic;  // (vm, APIC id); first vCPU wins
    for (const auto& vm : trace.vms)
        for (const auto& v : vm.vcpus) by_apic.emplace(std::pair{vm.id.value(), std::int64_t{v.apic.value()}}, v.id);
    auto vcpu_for_apic = [&](VmId vm, std::int64_t apic) -> VcpuId {
        if (vm == kUnknownVm) return kUnknownVcpu;
        auto it = by_apic.find({vm.value(), apic});
        return it == by_apic.end() ? kUnknownVcpu : it->second;
    };
    last_tid = INT32_MIN;
    const ThreadVm* last = nullptr;
    DropWindowFinder drops;  // fused with this pass: a pass of its own costs as much
    for (std::size_t i = 0; i < events.size(); ++i) {
        const EventKind kind = events.kind(i);
        const std::int32_t tid = events.tid(i).value();
        drops.next(kind, events.cpu(i));
        if (tid != last_tid) {
            last_tid = tid;
            auto it = thread.find(last_tid);
            last = it == thread.end() ? nullptr : &it->second;
        }
        if (!last) continue;
        VcpuId vcpu = last->vcpu;
        switch (kind) {
        case EventKind::ApicAcceptIrq:
        case EventKind::ApicvAcceptIrq:
            if (auto a = events[i].get(slot::accept_apicid)) vcpu = vcpu_for_apic(last->vm, *a);
            break;
        case EventKind::HvSynicSetIrq:
        case EventKind::HvSynicSendEoi:
        case EventKind::WaitLapicExpire:
            if (auto v = events[i].get(0)) vcpu = VcpuId(static_cast<std::int32_t>(*v));
            break;
        default: break;
        }
        trace.events.set_owner(i, last->vm, vcpu);
    }
    trace.drop_window_starts = drops.take();
}

}  // namespace irqflow
