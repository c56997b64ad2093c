// Model::decide and Model::commit: what each kind of event does to the machine state.
// IPI destination sets and lookups are in routing.cpp.
#include "model.hpp"

#include <algorithm>

#include "irqflow/capture/exit_reasons.hpp"
#include "registers.hpp"

namespace irqflow::replay {
namespace {

constexpr std::int64_t kResetVector = 0xfff0;  // where a vCPU starts after reset (CS:IP f000:fff0)

}  // namespace

Model::Model(const Trace& t) {
    for (const auto& vm : t.vms) {
        VmModel m;
        m.id = vm.id;
        auto& dense = dense_.emplace_back();
        for (const auto& c : vm.vcpus) {
            if (c.id.value() < 0) continue;  // cannot be named by any event
            const VcpuSlot slot(static_cast<std::int32_t>(vcpus_.size()));
            VcpuModel v;
            v.vm = vm.id;
            v.id = c.id;
            v.apic = c.apic;
            v.tid = c.tid;
            vcpus_.push_back(v);
            m.vcpus.push_back(slot);
            if (c.id.value() < kDenseIds) {
                const auto i = static_cast<std::size_t>(c.id.value());
                if (i >= dense.size()) dense.resize(i + 1, kNoVcpu);
                dense[i] = slot;
            } else {
                sparse_.push_back({(std::int64_t{vm.id.value()} << 32) | static_cast<std::uint32_t>(c.id.value()), slot});
            }
        }
        vms_.push_back(std::move(m));
    }
    std::sort(sparse_.begin(), sparse_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

Effect Model::decide(const Event& e) const {
    Effect fx;
    switch (e.kind) {
    case EventKind::Lost:
    case EventKind::ApicvInhibitChanged:
    case EventKind::IoapicSetIrq: return fx;  // VM-wide
    case EventKind::ApicAcceptIrq: {
        fx.vector = static_cast<int>(e.get(slot::accept_vec).value_or(0));
        fx.level = e.get(slot::accept_tm).value_or(0) != 0;
        fx.vcpu = e.vm == kUnknownVm ? kNoVcpu : vcpu_by_apic(e.vm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)));
        if (fx.vcpu == kNoVcpu) {
            fx.outcome = Outcome::AcceptNoVcpu;
            return fx;
        }
        const auto& d = vcpu(fx.vcpu);
        fx.known = d.synced;
        const int dm = static_cast<int>(e.get(slot::accept_dm).value_or(0));
        if (dm == apic::kDmInit) {
            fx.outcome = Outcome::AcceptInit;
        } else if (dm != apic::kDmFixed && dm != apic::kDmLowestPriority) {
            fx.outcome = Outcome::AcceptNotInIrr;
        } else if (fx.vector < apic::kFirstLegalVector) {
            fx.outcome = Outcome::AcceptIllegal;
        } else {
            fx.outcome = Outcome::Accepted;
            fx.coalesced = d.lapic.irr().test(fx.vector);
        }
        return fx;
    }
    case EventKind::ApicvAcceptIrq:
        fx.vcpu = vcpu_by_apic(e.vm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)));
        fx.outcome = Outcome::AcceptPosted;
        return fx;
    default: break;
    }
    if (e.kind == EventKind::Entry) {
        const VmModel* vm = this->vm(e.vm);
        fx.starts_vm = vm && !vm->started;
        fx.boots_vm = fx.starts_vm && e.get(slot::entry_rip) == kResetVector;
    }
    fx.vcpu = own_vcpu(e);
    if (fx.vcpu == kNoVcpu) return fx;
    const VcpuModel& v = vcpu(fx.vcpu);
    fx.known = v.synced || fx.boots_vm;
    switch (e.kind) {
    case EventKind::InjVirq: {
        const int vec = fx.vector = static_cast<int>(e.get(slot::inj_vector).value_or(-1));
        // Kernels before the `reinjected` field: the same vector right after an exit whose
        // exit_int_info shows its delivery was cut short is a re-injection.
        const auto flag = e.get(slot::inj_reinjected);
        if (e.get(slot::inj_soft).value_or(0)) fx.outcome = Outcome::InjectSoft;
        else if (flag ? *flag != 0 : vec == v.interrupted_vector) fx.outcome = Outcome::Reinject;
        else if (vec < 0 || vec >= apic::kVectors) fx.outcome = Outcome::InjectBadVector;
        // Not pending in the local APIC while the 8259 can deliver to this vCPU (APIC
        // software-disabled, or LVT0 in ExtINT mode) and the vector is one the PIC was
        // programmed with: an ExtINT delivery, acknowledged by the PIC.
        else if (!v.lapic.irr().test(vec) && (!v.lapic.software_enabled() || v.lapic.lvt0_extint()) && vm(v.vm)->pic.delivers(vec))
            fx.outcome = Outcome::InjectExtInt;
        else fx.outcome = v.synic.auto_eoi(vec) ? Outcome::InjectedAutoEoi : Outcome::Injected;
        break;
    }
    case EventKind::Eoi: {
        const int vec = fx.vector = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
        fx.outcome = vec < 0 ? Outcome::EoiNothing : vec >= apic::kVectors ? Outcome::EoiBadVector : Outcome::Eoi;
        break;
    }
    case EventKind::PvEoi:
        fx.vector = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
        fx.pv_eoi = v.pv_eoi.peek_use();
        break;
    default: break;
    }
    return fx;
}

void Model::commit(const Event& e, const Effect& fx) {
    completed_.clear();
    sent_ = nullptr;
    switch (e.kind) {
    case EventKind::Lost:  // anything could have happened on that CPU: every vCPU may have run there
        unsync_all();
        ipis_.drop_all();
        return;
    case EventKind::ApicvInhibitChanged: {
        VmModel* vm = vm_mut(e.vm);
        if (!vm) return;
        vm->apicv_active = e.get(slot::apicv_inhibits).value_or(1) == 0;  // no inhibit left: APICv/AVIC runs
        if (vm->apicv_active)
            for (auto s : vm->vcpus) vcpus_[static_cast<std::size_t>(s.value())].synced = false;
        return;
    }
    case EventKind::IoapicSetIrq:
        if (VmModel* vm = vm_mut(e.vm))
            vm->ioapic.route(static_cast<int>(e.get(slot::ioapic_pin).value_or(-1)),
                             {static_cast<int>(e.get(slot::ioapic_vec).value_or(0)), e.get(slot::ioapic_tm).value_or(0) != 0,
                              static_cast<std::uint32_t>(e.get(slot::ioapic_dst).value_or(0)), e.get(slot::ioapic_dest_mode).value_or(0) != 0});
        return;
    case EventKind::ApicAcceptIrq: commit_accept(e, fx); return;
    case EventKind::ApicvAcceptIrq:
        if (fx.vcpu != kNoVcpu) vcpus_[static_cast<std::size_t>(fx.vcpu.value())].synced = false;
        return;
    default: break;
    }
    if (e.kind == EventKind::Entry) commit_entry(e, fx);
    if (fx.vcpu == kNoVcpu) return;
    VcpuModel& v = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
    ++v.thread_events;
    switch (e.kind) {
    case EventKind::InjVirq: commit_inject(e, fx, v); break;
    case EventKind::Eoi:
        v.last_eoi_vector = fx.vector;
        if (fx.outcome == Outcome::EoiNothing) v.lapic.eoi_nothing();
        else if (fx.outcome == Outcome::Eoi) v.lapic.eoi(fx.vector);
        if (fx.outcome != Outcome::EoiBadVector) v.pv_eoi.eoi();
        break;
    case EventKind::PvEoi: v.pv_eoi.use(); break;
    case EventKind::Exit: commit_exit(e, v); break;
    case EventKind::Msr: commit_msr(e, v); break;
    case EventKind::Apic:
        if (e.get(slot::apic_rw) == 1) v.lapic.write_register(e.get(slot::apic_reg).value_or(0), e.get(slot::apic_val).value_or(0));
        break;
    case EventKind::Hypercall:
        if (e.get(slot::hc_nr) == hypercall::kSendIpi) send_pv_ipi(e, v);
        break;
    case EventKind::ApicIpi: send_icr(e, v); break;
    case EventKind::HvSendIpi:
    case EventKind::HvSendIpiEx: send_hv_ipi(e, v); break;
    case EventKind::VcpuWakeup:
        // The vCPU really blocked after HLT. KVM blocks only with nothing deliverable, so
        // every pending vector now was accepted since that HLT (and is in the trace); and
        // Linux halts only outside interrupt handlers, so nothing is in service.
        if (!v.synced && v.in_hlt && e.get(slot::wakeup_waited).value_or(0) == 1 && !vm(v.vm)->apicv_active) {
            v.lapic.idle_since(v.accepted_since_hlt);
            v.pv_eoi.eoi();
            v.synced = true;
        }
        break;
    case EventKind::Pio:
        if (e.get(slot::pio_rw) == 1) vm_mut(v.vm)->pic.write_port(e.get(slot::pio_port).value_or(0), e.get(slot::pio_val).value_or(0));
        break;
    default: break;
    }
}

void Model::commit_accept(const Event& e, const Effect& fx) {
    const int dm = static_cast<int>(e.get(slot::accept_dm).value_or(0));
    // an IPI being sent from this thread collects its destinations
    ipis_.received(e.tid, fx.vector, dm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)));
    if (fx.vcpu == kNoVcpu) return;
    VcpuModel& d = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
    if (fx.outcome == Outcome::AcceptInit) {
        d.lapic.reset();
        d.pv_eoi.eoi();
        d.synced = true;
    } else if (fx.outcome == Outcome::Accepted) {
        d.lapic.accept(fx.vector, fx.level);
        d.accepted_since_hlt.set(fx.vector);
        if (e.tid != d.tid) d.racing.set(fx.vector);
    }
}

void Model::commit_inject(const Event&, const Effect& fx, VcpuModel& v) {
    if (fx.outcome == Outcome::InjectSoft) return;
    v.interrupted_vector = -1;
    switch (fx.outcome) {
    case Outcome::InjectExtInt: v.last_extint_vector = fx.vector; break;
    case Outcome::Injected:
    case Outcome::InjectedAutoEoi: {
        v.last_extint_vector = -1;
        const bool auto_eoi = fx.outcome == Outcome::InjectedAutoEoi;
        v.lapic.inject(fx.vector, auto_eoi);
        if (!auto_eoi) v.pv_eoi.injected(fx.vector, ioapic_handles(v, fx.vector));
        break;
    }
    default: break;
    }
}

void Model::commit_entry(const Event& e, const Effect& fx) {
    if (fx.starts_vm) {
        VmModel* vm = vm_mut(e.vm);
        vm->started = true;
        if (fx.boots_vm)  // recorded from boot: every APIC of the VM starts empty and software-disabled
            for (auto s : vm->vcpus) {
                auto& v = vcpus_[static_cast<std::size_t>(s.value())];
                v.synced = true;
                v.lapic.set_software_enabled(false);
            }
    }
    if (fx.vcpu == kNoVcpu) return;
    VcpuModel& v = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
    ipis_.complete(v.tid, completed_);
    if (e.get(slot::entry_rip) == kResetVector && (!v.lapic.isr().empty() || !v.lapic.irr().empty() || !v.synced)) {
        // entering at the reset vector: a (re)booted vCPU, its local APIC freshly reset
        v.lapic.reset();
        v.pv_eoi.eoi();
        v.synced = true;
    }
    v.in_hlt = false;
    // IRR counts as empty for PV EOI arming if only vectors racing in from other CPUs are there.
    const bool settled_empty = v.lapic.irr().minus(v.racing).empty();
    const int cached = v.pv_eoi.isr_cache();
    v.pv_eoi.before_entry(settled_empty, settled_empty && cached >= 0 && ioapic_handles(v, cached),
                          !v.lapic.irr().empty() && v.lapic.deliverable() < 0);
}

void Model::commit_exit(const Event& e, VcpuModel& v) {
    ipis_.complete(v.tid, completed_);
    v.racing.reset();
    v.interrupted_vector = apic::interrupted_delivery(e.get(slot::exit_intr_info).value_or(0));
    if (exit_class(e) == ExitClass::Hlt) {
        v.in_hlt = true;
        v.accepted_since_hlt.reset();
    }
}

void Model::commit_msr(const Event& e, VcpuModel& v) {
    if (e.get(slot::msr_write) != 1) return;
    const auto ecx = static_cast<std::uint32_t>(e.get(slot::msr_ecx).value_or(0));
    const auto data = e.get(slot::msr_data).value_or(0);
    if (ecx >= apic::kMsrX2apicFirst && ecx <= apic::kMsrX2apicLast) vm_mut(v.vm)->x2apic = true;
    if (ecx == msr::kKvmPvEoiEn || ecx == msr::kHvVpAssistPage) v.pv_eoi.write_msr(data);
    else if (ecx >= msr::kHvSint0 && ecx <= msr::kHvSint15) v.synic.write_sint(data);
    else v.lapic.write_msr(ecx, data);
}

void Model::unsync_all() {
    for (auto& v : vcpus_) v.synced = false;
}

void Model::finish() {
    completed_.clear();
    sent_ = nullptr;
    ipis_.complete_all(completed_);
}

bool Model::ioapic_handles(const VcpuModel& v, int vector) const {
    const VmModel* vm = this->vm(v.vm);
    return vm && vm->ioapic.handles(vector, v.lapic, v.apic);
}

VcpuState Model::state(VcpuSlot s) const {
    const auto& v = vcpu(s);
    VcpuState st;
    st.vm = v.vm;
    st.vcpu = v.id;
    st.apic = v.apic;
    st.irr = v.lapic.irr();
    st.isr = v.lapic.isr();
    st.tmr = v.lapic.tmr();
    st.tpr = v.lapic.tpr();
    st.pv_eoi_enabled = v.pv_eoi.enabled();
    st.pv_eoi_armed = v.pv_eoi.armed();
    st.synced = v.synced;
    return st;
}

}  // namespace irqflow::replay
