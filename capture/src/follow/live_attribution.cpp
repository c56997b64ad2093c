#include "live_attribution.hpp"

#include <algorithm>
#include <string>

namespace irqflow {
VcpuInfo* LiveAttribution::find(VmId vm, VcpuId id) {
    if (vm.value() < 0 || static_cast<std::size_t>(vm.value()) >= t_.vms.size()) return nullptr;
    for (auto& v : t_.vms[static_cast<std::size_t>(vm.value())].vcpus)
        if (v.id == id) return &v;
    return nullptr;
}

VcpuInfo& LiveAttribution::add(VmId vm, VcpuInfo v) {
    while (t_.vms.size() <= static_cast<std::size_t>(vm.value())) {
        VmInfo m;
        m.id = VmId(static_cast<std::int32_t>(t_.vms.size()));
        t_.vms.push_back(m);
    }
    auto& list = t_.vms[static_cast<std::size_t>(vm.value())].vcpus;  // sorted by id
    auto it = list.insert(std::upper_bound(list.begin(), list.end(), v, [](const VcpuInfo& a, const VcpuInfo& b) { return a.id < b.id; }), v);
    vcpu_of_apic_.emplace(std::pair{vm.value(), std::int64_t{v.apic.value()}}, v.id);
    return *it;
}

// A thread's first entry or exit names its vCPU. It joins the first VM that has no vCPU
// of that id yet (QEMU starts a VM's vCPU threads in index order, so a repeated index is
// another VM), or the vCPU an accept or EOI made known before any thread ran it.
void LiveAttribution::bind_thread(std::int32_t tid, std::int32_t id, std::vector<Learnt>& learnt) {
    vcpu_threads_ = true;
    VmId vm = kUnknownVm;
    for (const auto& m : t_.vms) {
        const auto it = std::find_if(m.vcpus.begin(), m.vcpus.end(), [&](const VcpuInfo& v) { return v.id.value() == id; });
        if (it == m.vcpus.end() || it->tid.value() < 0) {
            vm = m.id;
            break;
        }
    }
    if (vm == kUnknownVm) vm = VmId(static_cast<std::int32_t>(t_.vms.size()));
    VcpuInfo* v = find(vm, VcpuId(id));
    if (v) v->tid = Tid(tid);
    else v = &add(vm, {VcpuId(id), Tid(tid), ApicId(static_cast<std::uint32_t>(id)), false});
    if (const auto it = thread_.find(tid); it != thread_.end() && it->second.vm.value() >= 0) {
        auto& others = t_.vms[static_cast<std::size_t>(it->second.vm.value())].other_threads;
        others.erase(std::remove(others.begin(), others.end(), Tid(tid)), others.end());
    }
    thread_[tid] = {vm, VcpuId(id)};
    kvm_threads_.erase(tid);
    learnt.push_back({vm, *v});
}

// Accepts and EOIs name APIC ids: an EOI runs on its vCPU's own thread, so a vCPU
// thread's first EOI gives its APIC id; with no thread naming its vCPU yet, a vCPU per
// APIC id (vCPU id = APIC id, KVM's default).
void LiveAttribution::by_apic(const Event& e, std::int64_t apic, std::vector<Learnt>& learnt) {
    const std::int32_t tid = e.tid.value();
    if (is_eoi(e.kind) && eoi_seen_.insert(tid).second) {
        if (const auto it = thread_.find(tid); it != thread_.end() && it->second.vcpu != kUnknownVcpu) {
            VcpuInfo* v = find(it->second.vm, it->second.vcpu);
            if (v && !v->apic_from_trace) {
                v->apic = ApicId(static_cast<std::uint32_t>(apic));
                v->apic_from_trace = true;
                vcpu_of_apic_.emplace(std::pair{it->second.vm.value(), apic}, v->id);
                learnt.push_back({it->second.vm, *v});
            }
            return;
        }
    }
    if (apic < 0 || apic > kMaxInferredApicId) return;
    if (vcpu_threads_) {
        if (is_accept(e.kind)) vcpu_before_its_thread(e, apic, learnt);
        return;
    }
    const VcpuId id(static_cast<std::int32_t>(apic));
    VcpuInfo* v = find(VmId(0), id);
    if (!v) {
        inferred_ = true;
        v = &add(VmId(0), {id, Tid(-1), ApicId(static_cast<std::uint32_t>(apic)), true});
        learnt.push_back({VmId(0), *v});
    }
    if (is_eoi(e.kind) && v->tid.value() < 0 && !thread_.count(tid)) {
        v->tid = e.tid;
        thread_[tid] = {VmId(0), id};
        learnt.push_back({VmId(0), *v});
    }
}

// An accept for an APIC id no vCPU of the sender's VM has yet: a vCPU whose thread has
// not run (a boot's INIT and SIPI reach the APs before their first entry, seconds
// before it when the host is slow — more than any look-ahead holds). KVM gives a vCPU
// its APIC id as vCPU id, so that vCPU is made now, without a thread; its thread joins
// it at its first entry (bind_thread), as the two-pass attribution, which knows every
// thread from the start, would have placed it.
void LiveAttribution::vcpu_before_its_thread(const Event& e, std::int64_t apic, std::vector<Learnt>& learnt) {
    const auto it = thread_.find(e.tid.value());
    const VmId vm = it != thread_.end() ? it->second.vm : nearest_vm(e.tid.value());
    if (vm == kUnknownVm || vcpu_of_apic_.count({vm.value(), apic})) return;
    const VcpuId id(static_cast<std::int32_t>(apic));
    if (find(vm, id)) return;  // that id runs another APIC id: not KVM's default numbering
    learnt.push_back({vm, add(vm, {id, Tid(-1), ApicId(static_cast<std::uint32_t>(apic)), false})});
}

// An event naming a vCPU (its own vcpu_id field) that its VM has no vCPU of yet: that
// vCPU exists, though no thread has run it so far (named_vcpu; the two-pass Attributor
// adds such vCPUs in finish()). Its thread joins it at its first entry.
void LiveAttribution::named_without_thread(const Event& e, VcpuId id, std::vector<Learnt>& learnt) {
    if (std::pair{e.tid.value(), id} == last_naming_) return;
    last_naming_ = {e.tid.value(), id};
    const auto it = thread_.find(e.tid.value());
    const VmId vm = it != thread_.end() ? it->second.vm : nearest_vm(e.tid.value());
    if (vm == kUnknownVm || find(vm, id)) return;
    learnt.push_back({vm, add(vm, {id, Tid(-1), ApicId(static_cast<std::uint32_t>(id.value())), false})});
}

void LiveAttribution::learn(const Event& e, std::vector<Learnt>& learnt, std::vector<std::size_t>& drops) {
    drops_.next(e.kind, e.cpu);
    if (e.kind == EventKind::Lost) {
        const auto starts = drops_.take();
        drops.insert(drops.end(), starts.begin(), starts.end());
        return;
    }
    const std::int32_t tid = e.tid.value();
    if (tid >= 0 && !thread_.count(tid) && kvm_work_(e)) kvm_threads_.insert(tid);
    if (e.kind == EventKind::Entry || e.kind == EventKind::Exit) {
        const auto id = e.get(e.kind == EventKind::Entry ? slot::entry_vcpu_id : slot::exit_vcpu_id);
        // a thread placed in a VM before its first entry (its wakeups, its vCPU's setup)
        // is that VM's vCPU thread from now on
        const auto it = thread_.find(tid);
        if (id && tid >= 0 && (it == thread_.end() || it->second.vcpu == kUnknownVcpu)) bind_thread(tid, static_cast<std::int32_t>(*id), learnt);
    }
    std::optional<std::int64_t> apic;
    if (is_accept(e.kind)) apic = e.get(slot::accept_apicid);
    if (is_eoi(e.kind)) apic = e.get(slot::eoi_apicid);
    if (apic) by_apic(e, *apic, learnt);
    if (const auto named = named_vcpu(e); named && tid >= 0 && kvm_work_(e)) named_without_thread(e, *named, learnt);
}

VmId LiveAttribution::nearest_vm(std::int32_t tid) const {
    VmId best = kUnknownVm;
    std::int64_t distance = INT64_MAX;
    for (const auto& m : t_.vms)
        for (const auto& v : m.vcpus) {
            if (v.tid.value() < 0) continue;
            const std::int64_t d = std::abs(std::int64_t{v.tid.value()} - tid);
            if (d < distance || (d == distance && v.tid.value() < tid)) distance = d, best = m.id;
        }
    return best;
}

std::pair<VmId, VcpuId> LiveAttribution::owner(const Event& e) {
    const std::int32_t tid = e.tid.value();
    auto it = thread_.find(tid);
    if (it == thread_.end()) {
        if (!kvm_threads_.count(tid)) return {kUnknownVm, kUnknownVcpu};
        const VmId vm = nearest_vm(tid);
        if (vm == kUnknownVm) return {kUnknownVm, kUnknownVcpu};  // no vCPU thread known yet
        kvm_threads_.erase(tid);
        t_.vms[static_cast<std::size_t>(vm.value())].other_threads.push_back(e.tid);
        it = thread_.emplace(tid, ThreadVm{vm, kUnknownVcpu}).first;
    }
    const ThreadVm tv = it->second;
    return {tv.vm, event_vcpu(e, tv.vm, tv.vcpu, vcpu_of_apic_)};
}

void LiveAttribution::end() {
    if (!inferred_ || vcpu_threads_ || t_.vms.empty()) return;
    t_.meta.warnings.push_back("no kvm_entry/kvm_exit: " + std::to_string(t_.vms.front().vcpus.size()) +
                               " vCPU(s) inferred from the APIC ids that accepts and EOIs name (vCPU id = APIC id)");
}

}  // namespace irqflow
