// Who is who in a VM — vCPU by thread, by APIC id — and the destination set of each
// kind of IPI send (ICR write, PV IPI hypercall, Hyper-V IPI), from the APIC ids, the
// guest's LDR/DFR and its x2APIC cluster addressing.
#include <algorithm>

#include "model.hpp"
#include "registers.hpp"

namespace irqflow::replay {
const VmModel* Model::find_vm(VmId id) const {
    for (const auto& m : vms_)
        if (m.id == id) return &m;
    return nullptr;
}

int Model::vm_index(VmId id) const {
    const VmModel* m = vm(id);
    return m ? static_cast<int>(m - vms_.data()) : -1;
}

VmModel* Model::vm_mut(VmId id) { return const_cast<VmModel*>(static_cast<const Model*>(this)->vm(id)); }

VcpuSlot Model::find_sparse(VmId vm, std::int32_t id) const {
    const std::int64_t key = (std::int64_t{vm.value()} << 32) | static_cast<std::uint32_t>(id);
    auto it = std::lower_bound(sparse_.begin(), sparse_.end(), key, [](const auto& p, std::int64_t k) { return p.first < k; });
    return it != sparse_.end() && it->first == key ? it->second : kNoVcpu;
}

namespace {

// A send from vCPU `v` at event `e`, its destinations still to fill in.
IpiSend send_from(const Event& e, const VcpuModel& v, IpiKind kind, std::int64_t vector, std::int64_t delivery_mode) {
    IpiSend s;
    s.record = e.record;
    s.ts = e.ts;
    s.vm = v.vm;
    s.sender = v.id;
    s.kind = kind;
    s.vector = static_cast<int>(vector);
    s.delivery_mode = static_cast<int>(delivery_mode);
    return s;
}

}  // namespace

void Model::index_apics(VmModel& m) {
    m.by_apic.clear();
    for (auto s : m.vcpus) {
        const std::uint32_t apic = vcpu(s).apic.value();
        if (apic >= kDenseIds) continue;
        if (apic >= m.by_apic.size()) m.by_apic.resize(apic + 1, kNoVcpu);
        if (m.by_apic[apic] == kNoVcpu) m.by_apic[apic] = s;
    }
}

VcpuSlot Model::vcpu_by_sparse_apic(const VmModel& m, std::uint32_t apic) const {
    for (auto s : m.vcpus)
        if (vcpu(s).apic.value() == apic) return s;
    return kNoVcpu;
}

void Model::send_icr(const Event& e, VcpuModel& v) {
    const auto dest = static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0));
    const int dm = static_cast<int>(e.get(slot::ipi_dm).value_or(0));
    const bool logical = e.get(slot::ipi_dest_mode).value_or(0) != 0;
    const int shorthand = static_cast<int>(e.get(slot::ipi_shorthand).value_or(0));
    if (dm == apic::kDmInit && e.get(slot::ipi_level).value_or(1) == 0) return;  // INIT level de-assert: KVM ignores it
    VmModel& vm = *vm_mut(v.vm);
    IpiSend s = send_from(e, v, IpiKind::IcrWrite, e.get(slot::ipi_vec).value_or(0), dm);
    s.lowest_priority = dm == apic::kDmLowestPriority;
    const auto self = v.apic.value();
    auto each = [&](auto&& f) {
        for (auto slot : vm.vcpus) f(vcpu(slot));
    };
    switch (shorthand) {
    case apic::kShorthandSelf: s.expected.insert(self); break;
    case apic::kShorthandAll: each([&](const VcpuModel& d) { s.expected.insert(d.apic.value()); }); break;
    case apic::kShorthandAllButSelf:
        each([&](const VcpuModel& d) {
            if (d.apic.value() != self) s.expected.insert(d.apic.value());
        });
        break;
    default:
        if (!logical) {
            if (dest == apic::kBroadcastX2apic || (dest == apic::kBroadcastXapic && vm.vcpus.size() < apic::kBroadcastXapic))
                each([&](const VcpuModel& d) { s.expected.insert(d.apic.value()); });
            else if (vcpu_by_apic(v.vm, dest) != kNoVcpu)
                s.expected.insert(dest);
        } else if (dest > 0xff) {  // x2APIC cluster mode
            vm.x2apic_cluster = true;
            each([&](const VcpuModel& d) {
                if (apic::x2apic_logical_match(dest, d.apic.value())) s.expected.insert(d.apic.value());
            });
        } else {  // xAPIC logical: each vCPU's LDR (flat or cluster model) decides
            each([&](const VcpuModel& d) {
                const auto m = d.lapic.logical_match(dest);
                if (!m) s.exact = false;
                else if (*m) s.expected.insert(d.apic.value());
            });
        }
    }
    if (s.lowest_priority) s.exact = false;
    add_send(v, std::move(s));
}

void Model::send_pv_ipi(const Event& e, VcpuModel& v) {
    const auto a0 = static_cast<std::uint64_t>(e.get(slot::hc_a0).value_or(0));
    const auto a1 = static_cast<std::uint64_t>(e.get(slot::hc_a1).value_or(0));
    const auto base = static_cast<std::uint32_t>(e.get(slot::hc_a2).value_or(0));
    const auto icr = e.get(slot::hc_a3).value_or(0);
    IpiSend s = send_from(e, v, IpiKind::PvIpiHypercall, icr & 0xff, (icr >> 8) & 7);
    // a0/a1: a 128-bit bitmap of APIC ids relative to a2; ids no vCPU owns are skipped
    for (int i = 0; i < 128; ++i) {
        const std::uint64_t w = i < 64 ? a0 : a1;
        if (!((w >> (i & 63)) & 1)) continue;
        const std::uint32_t id = base + static_cast<std::uint32_t>(i);
        if (vcpu_by_apic(v.vm, id) != kNoVcpu) s.expected.insert(id);
    }
    add_send(v, std::move(s));
}

void Model::send_hv_ipi(const Event& e, VcpuModel& v) {
    IpiSend s = send_from(e, v, IpiKind::HypervIpi, e.get(slot::hv_ipi_vector).value_or(0), apic::kDmFixed);
    if (e.kind == EventKind::HvSendIpi) {
        // VP index = vCPU index (QEMU's hv-vpindex)
        const auto mask = static_cast<std::uint64_t>(e.get(slot::hv_ipi_processor_mask).value_or(0));
        for (auto slot : vm(v.vm)->vcpus) {
            const auto& d = vcpu(slot);
            if (d.id.value() < 64 && ((mask >> d.id.value()) & 1)) s.expected.insert(d.apic.value());
        }
    } else {
        s.exact = false;  // _ex: the sparse banks are not in the trace
    }
    add_send(v, std::move(s));
}

}  // namespace irqflow::replay
