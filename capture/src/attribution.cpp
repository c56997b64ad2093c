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
#include "irqflow/capture/attribution.hpp"

#include <algorithm>
#include <string>

#include "irqflow/capture/readers.hpp"

namespace irqflow {
int Attributor::learnt_slot(EventKind k) {
    if (k == EventKind::Entry) return slot::entry_vcpu_id;  // the vCPU its thread runs
    if (k == EventKind::Exit) return slot::exit_vcpu_id;
    if (is_accept(k)) return slot::accept_apicid;  // APIC ids vCPUs answer to
    if (is_eoi(k)) return slot::eoi_apicid;
    if (names_vcpu(k)) return 0;  // the vCPU it names (named_vcpu)
    return -1;
}

bool Attributor::learns_fields(EventKind k) { return learnt_slot(k) >= 0; }

EventHead Attributor::head_of(const Event& e) {
    EventHead h;
    h.kind = e.kind;
    h.name_id = e.name_id;
    h.cpu = e.cpu;
    h.tid = e.tid;
    h.value = e.get(learnt_slot(e.kind));
    return h;
}

bool Attributor::owner_reads_fields(EventKind k) { return is_accept(k) || names_vcpu(k); }

bool KvmWork::operator()(EventKind kind, std::uint16_t name_id) {
    if (kind != EventKind::Other) return true;
    if (name_id >= by_name_.size()) by_name_.resize(names_.name_count(), -1);
    if (name_id >= by_name_.size()) return false;
    signed char& k = by_name_[name_id];
    if (k < 0) k = names_.name(name_id).rfind("kvm", 0) == 0;
    return k != 0;
}

void Attributor::learn(const EventHead& e) {
    drops_.next(e.kind, e.cpu);
    if (e.kind == EventKind::Lost) return;
    const std::int32_t tid = e.tid.value();
    // threads doing KVM work, in order of appearance (events come in runs per thread)
    if (tid >= 0 && tid != last_learnt_tid_ && kvm_work_(e.kind, e.name_id)) {
        last_learnt_tid_ = tid;
        if (kvm_thread_seen_.insert(tid).second) kvm_threads_.push_back(tid);
    }
    if (e.kind == EventKind::InjVirq && tid >= 0 && tid != last_injector_) {
        last_injector_ = tid;
        injectors_.insert(tid);
    }
    if (!e.value) return;  // (learnt_slot: the one field each kind is learnt from)
    const std::int64_t v = *e.value;
    switch (e.kind) {
    case EventKind::Entry:
    case EventKind::Exit:  // the vCPU this thread runs
        if (tid != last_vcpu_tid_) {
            vcpu_of_tid_.try_emplace(tid, static_cast<std::int32_t>(v));
            last_vcpu_tid_ = tid;
        }
        return;
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq: learn_apic(v, Tid(-1)); return;
    case EventKind::Eoi:
    case EventKind::PvEoi:  // a thread that EOIs with an APIC id runs that vCPU (EOIs run on the vCPU's own thread)
        if (tid != last_eoi_tid_) {
            eoi_apic_of_tid_.try_emplace(tid, v);
            last_eoi_tid_ = tid;
        }
        learn_apic(v, e.tid);
        return;
    default:  // names_vcpu: the vCPU it names (as named_vcpu reads it)
        if (v >= 0 && v <= kMaxInferredApicId && tid >= 0) {
            const std::pair<std::int32_t, VcpuId> naming{tid, VcpuId(static_cast<std::int32_t>(v))};
            if (naming != last_naming_) {
                last_naming_ = naming;
                named_by_tid_.insert({tid, naming.second.value()});
            }
        }
        return;
    }
}

// vCPUs by APIC id, in case no thread names the vCPU it runs: one per APIC id an accept
// or EOI names (vCPU id = APIC id, KVM's default), run by the first thread that EOIs
// with it (`eoi_tid`; -1 for an accept).
void Attributor::learn_apic(std::int64_t apic, Tid eoi_tid) {
    if (apic < 0 || apic > kMaxInferredApicId) return;
    if (apic != last_apic_) {  // (std::map's nodes stay where they are)
        last_apic_ = apic;
        last_apic_info_ = &by_apic_[apic];
    }
    auto& v = *last_apic_info_;
    v.id = VcpuId(static_cast<std::int32_t>(apic));
    v.apic = ApicId(static_cast<std::uint32_t>(apic));
    v.apic_from_trace = true;
    if (eoi_tid.value() >= 0 && v.tid.value() < 0) v.tid = eoi_tid;
}

void Attributor::append(const Attributor& later) {
    drops_.append(later.drops_);
    // what a thread, an APIC id did first is what this part saw it do, if it saw it
    for (const auto& [tid, id] : later.vcpu_of_tid_) vcpu_of_tid_.try_emplace(tid, id);
    for (const auto& [tid, apic] : later.eoi_apic_of_tid_) eoi_apic_of_tid_.try_emplace(tid, apic);
    for (const auto& [apic, v] : later.by_apic_) {
        const auto [it, fresh] = by_apic_.try_emplace(apic, v);
        if (!fresh && it->second.tid.value() < 0) it->second.tid = v.tid;
    }
    for (const std::int32_t tid : later.kvm_threads_)
        if (kvm_thread_seen_.insert(tid).second) kvm_threads_.push_back(tid);
    injectors_.insert(later.injectors_.begin(), later.injectors_.end());
    named_by_tid_.insert(later.named_by_tid_.begin(), later.named_by_tid_.end());
    // the runs these remember ended with this part
    last_learnt_tid_ = last_injector_ = last_vcpu_tid_ = last_eoi_tid_ = INT32_MIN;
    last_naming_ = {INT32_MIN, kUnknownVcpu};
    last_apic_ = -1;
    last_apic_info_ = nullptr;
}

void Attributor::finish(Trace& trace) {
    // VMs from tid order (vCPU threads sorted by tid).
    std::vector<std::pair<std::int32_t, std::int32_t>> vcpu_threads(vcpu_of_tid_.begin(), vcpu_of_tid_.end());
    std::sort(vcpu_threads.begin(), vcpu_threads.end());
    trace.vms.clear();
    std::int32_t prev = -1;
    for (auto [tid, vcpu] : vcpu_threads) {
        if (trace.vms.empty() || vcpu <= prev) {
            VmInfo vm;
            vm.id = VmId(static_cast<std::int32_t>(trace.vms.size()));
            trace.vms.push_back(vm);
        }
        prev = vcpu;
        auto& vm = trace.vms.back();
        vm.vcpus.push_back({VcpuId(vcpu), Tid(tid), ApicId(static_cast<std::uint32_t>(vcpu)), false});
        thread_[tid] = {vm.id, VcpuId(vcpu)};
    }

    // An excerpt without kvm_entry/kvm_exit (a hang report pasting the accepts that
    // repeat) still names its vCPUs: by the APIC ids accepts and EOIs carry. The only
    // injecting thread runs the vCPU when the accepts name a single APIC id; vCPUs with
    // no thread did not run in the excerpt (Tid -1).
    if (vcpu_threads.empty() && !by_apic_.empty()) {
        if (by_apic_.size() == 1 && injectors_.size() == 1 && by_apic_.begin()->second.tid.value() < 0)
            by_apic_.begin()->second.tid = Tid(*injectors_.begin());
        VmInfo vm;
        vm.id = VmId(0);
        std::set<std::int32_t> tids;
        for (auto& [apic, v] : by_apic_) {
            if (v.tid.value() >= 0 && !tids.insert(v.tid.value()).second) v.tid = Tid(-1);  // one thread, one vCPU
            vm.vcpus.push_back(v);
            if (v.tid.value() >= 0) thread_[v.tid.value()] = {vm.id, v.id};
        }
        trace.meta.warnings.push_back("no kvm_entry/kvm_exit: " + std::to_string(vm.vcpus.size()) +
                                      " vCPU(s) inferred from the APIC ids that accepts and EOIs name (vCPU id = APIC id)");
        trace.vms.push_back(vm);
    }

    // Other threads join the VM of the vCPU thread nearest in tid: a binary search in the
    // vCPU threads sorted by tid (a scan of all vCPUs per thread was quadratic).
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
    for (std::int32_t tid : kvm_threads_) {
        if (thread_.count(tid)) continue;
        const ThreadVm tv{nearest_vm(tid), kUnknownVcpu};
        thread_[tid] = tv;
        if (tv.vm != kUnknownVm) trace.vms[static_cast<std::size_t>(tv.vm.value())].other_threads.push_back(Tid(tid));
    }

    // A vCPU an event names (a timer torn down, a SynIC interrupt) that no thread of its
    // VM ran in the trace — an excerpt cut after the other vCPUs went idle — is a vCPU of
    // that VM all the same, without a thread (as a vCPU inferred from APIC ids is).
    for (const auto& named : named_by_tid_) {
        const std::int32_t tid = named.first, id = named.second;  // not bindings: clang 14 cannot capture those
        const auto it = thread_.find(tid);
        if (it == thread_.end() || it->second.vm == kUnknownVm) continue;
        auto& list = trace.vms[static_cast<std::size_t>(it->second.vm.value())].vcpus;
        if (std::any_of(list.begin(), list.end(), [&](const VcpuInfo& v) { return v.id.value() == id; })) continue;
        const VcpuInfo v{VcpuId(id), Tid(-1), ApicId(static_cast<std::uint32_t>(id)), false};
        list.insert(std::upper_bound(list.begin(), list.end(), v, [](const VcpuInfo& a, const VcpuInfo& b) { return a.id < b.id; }), v);
    }

    // APIC ids learnt from EOIs, which always run on the vCPU's own thread.
    for (auto& vm : trace.vms)
        for (auto& v : vm.vcpus) {
            if (v.apic_from_trace) continue;
            auto it = eoi_apic_of_tid_.find(v.tid.value());
            if (it == eoi_apic_of_tid_.end()) continue;
            v.apic = ApicId(static_cast<std::uint32_t>(it->second));
            v.apic_from_trace = true;
        }
    for (const auto& vm : trace.vms)
        for (const auto& v : vm.vcpus) vcpu_of_apic_.emplace(std::pair{vm.id.value(), std::int64_t{v.apic.value()}}, v.id);
    trace.drop_window_starts = drops_.take();
}

std::pair<VmId, VcpuId> Attributor::owner(const Event& e) {
    if (e.tid.value() != last_tid_) {
        last_tid_ = e.tid.value();
        auto it = thread_.find(last_tid_);
        last_ = it == thread_.end() ? nullptr : &it->second;
    }
    if (!last_) return {kUnknownVm, kUnknownVcpu};
    return {last_->vm, event_vcpu(e, last_->vm, last_->vcpu, vcpu_of_apic_)};
}

VcpuId event_vcpu(const Event& e, VmId vm, VcpuId thread_vcpu, const ApicOwners& owners) {
    switch (e.kind) {
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq:  // the destination's vCPU, whoever sent it
        if (auto a = e.get(slot::accept_apicid)) {
            auto it = vm == kUnknownVm ? owners.end() : owners.find({vm.value(), *a});
            return it == owners.end() ? kUnknownVcpu : it->second;
        }
        break;
    default:
        if (auto named = named_vcpu(e)) return *named;  // whichever thread emits it
        break;
    }
    return thread_vcpu;
}

void attribute(Trace& trace) {
    EventStore& events = trace.events;
    Attributor a(trace);
    // Both passes read the columns and decode only the events whose fields they need.
    auto head = [&](std::size_t i) {
        Event e;
        e.kind = events.kind(i);
        e.tid = events.tid(i);
        e.cpu = events.cpu(i);
        e.name_id = events.name_id(i);
        return e;
    };
    for (std::size_t i = 0; i < events.size(); ++i)
        a.learn(Attributor::learns_fields(events.kind(i)) ? events[i] : head(i));
    a.finish(trace);
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto [vm, vcpu] = a.owner(Attributor::owner_reads_fields(events.kind(i)) ? events[i] : head(i));
        events.set_owner(i, vm, vcpu);
    }
}

}  // namespace irqflow
