// The replay's model of the machine: every vCPU's local APIC, PV EOI and SynIC state,
// each VM's IOAPIC, 8259 and routing, what the trace has proven about them, and the
// IPIs in flight. The only mutable machine state of the replay; commit() (or apply())
// is its only writer. Rules and observers read it (replay/README.md, "Structure").
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "effect.hpp"
#include "ioapic.hpp"
#include "ipis_in_flight.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"
#include "kvm_pv_eoi.hpp"
#include "lapic.hpp"
#include "pic8259.hpp"
#include "synic.hpp"

namespace irqflow::replay {

struct VcpuModel {
    VmId vm = kUnknownVm;
    VcpuId id = kUnknownVcpu;
    ApicId apic{0};
    Tid tid{-1};
    Lapic lapic;
    KvmPvEoi pv_eoi;
    Synic synic;
    // What the trace has proven (replay/README.md, "Unknown until proven").
    bool synced = false;             // the state provably matches the guest's
    bool in_hlt = false;             // the last exit was HLT, no entry since
    VectorSet accepted_since_hlt;    // what arrived since that HLT
    // Accepted by another thread since this vCPU's last exit: KVM may or may not have
    // seen them when it chose what to inject and whether to arm PV EOI (the tracepoints
    // race across CPUs).
    VectorSet racing;
    int interrupted_vector = -1;     // the last exit cut this vector's delivery short (exit_int_info)
    int last_extint_vector = -1;     // the last injection was this 8259 vector (re-injected outside ISR too)
    int last_eoi_vector = -2;        // of the last kvm_eoi on its thread (-1: nothing in service; -2: none yet)
    std::uint64_t thread_events = 0; // events seen on this vCPU's thread (what came "right before")
};

struct VmModel {
    VmId id = kUnknownVm;
    std::vector<VcpuSlot> vcpus;  // in the trace's vCPU order
    Ioapic ioapic;
    Pic8259 pic;
    bool started = false;         // its first kvm_entry was seen
    bool x2apic = false;          // the guest touched x2APIC MSRs (else it uses xAPIC MMIO)
    bool x2apic_cluster = false;  // the guest sends logical (cluster) x2APIC IPIs
    bool apicv_active = false;    // APICv/AVIC runs: deliveries bypass the traced paths
};

class Model {
public:
    explicit Model(const Trace& trace);

    // What `e` will do, from the state before it. No change.
    Effect decide(const Event& e) const;
    // Makes the change `fx` (from decide) describes. IPIs the event completes are left
    // in completed() until the next commit.
    void commit(const Event& e, const Effect& fx);
    Effect apply(const Event& e) {
        const Effect fx = decide(e);
        commit(e, fx);
        return fx;
    }
    // Whether decide/commit do anything with this kind of event beyond noting it on its
    // vCPU's thread (Model::thread_event does that alone, faster).
    static constexpr bool models(EventKind k) {
        switch (k) {
        case EventKind::Lost: case EventKind::ApicvInhibitChanged: case EventKind::IoapicSetIrq:
        case EventKind::ApicAcceptIrq: case EventKind::ApicvAcceptIrq: case EventKind::Entry: case EventKind::Exit:
        case EventKind::InjVirq: case EventKind::Eoi: case EventKind::PvEoi: case EventKind::Msr: case EventKind::Apic:
        case EventKind::Hypercall: case EventKind::ApicIpi: case EventKind::HvSendIpi: case EventKind::HvSendIpiEx:
        case EventKind::VcpuWakeup: case EventKind::Pio: return true;
        default: return false;
        }
    }
    // The whole of decide + commit for a kind that models() says nothing about: the
    // vCPU whose thread emitted it, which notes one more event.
    VcpuSlot thread_event(const Event& e) {
        const VcpuSlot s = own_vcpu(e);
        if (s != kNoVcpu) ++vcpus_[static_cast<std::size_t>(s.value())].thread_events;
        return s;
    }
    // The end of the trace: every IPI in flight is complete.
    void finish();
    std::span<const IpiSend> completed() const { return completed_; }
    // The send the last commit recorded (an ICR write, PV IPI or Hyper-V IPI), or null.
    const IpiSend* sent() const { return sent_; }

    std::size_t vcpu_count() const { return vcpus_.size(); }
    const VcpuModel& vcpu(VcpuSlot s) const { return vcpus_[static_cast<std::size_t>(s.value())]; }
    std::span<const VcpuModel> vcpus() const { return vcpus_; }
    // The VM of that id, or null; its position among the VMs, or -1.
    const VmModel* vm(VmId id) const {
        const auto i = static_cast<std::size_t>(id.value());
        if (i < vms_.size() && vms_[i].id == id) return &vms_[i];  // ids are positions, as attribution numbers VMs
        return find_vm(id);
    }
    int vm_index(VmId id) const;
    std::size_t vm_count() const { return vms_.size(); }
    // Injections and PV EOIs of this vCPU can be judged: its state is known and no
    // APICv/AVIC delivers behind the trace's back.
    bool checkable(VcpuSlot s) const {
        const auto& v = vcpu(s);
        return v.synced && !vm(v.vm)->apicv_active;
    }
    // KVM's IOAPIC-handled vectors of this vCPU (see Ioapic::handles).
    bool ioapic_handles(const VcpuModel& v, int vector) const;
    // The vCPU owning an APIC id in a VM (the first, as KVM's map would), or kNoVcpu.
    VcpuSlot vcpu_by_apic(VmId vm, std::uint32_t apic) const;
    // The public snapshot of a vCPU.
    VcpuState state(VcpuSlot s) const;

private:
    // The vCPU whose thread emitted `e`: attributed to it, and from its own thread.
    VcpuSlot own_vcpu(const Event& e) const {
        const VmModel* vm = this->vm(e.vm);
        const auto id = e.vcpu.value();
        if (!vm || id < 0) return kNoVcpu;
        VcpuSlot s = kNoVcpu;
        const auto& dense = dense_[static_cast<std::size_t>(vm - vms_.data())];
        if (static_cast<std::size_t>(id) < dense.size()) s = dense[static_cast<std::size_t>(id)];
        else if (id >= kDenseIds) s = find_sparse(e.vm, id);
        return s != kNoVcpu && vcpu(s).tid == e.tid ? s : kNoVcpu;
    }
    const VmModel* find_vm(VmId id) const;
    VcpuSlot find_sparse(VmId vm, std::int32_t id) const;
    VmModel* vm_mut(VmId id);
    void commit_accept(const Event& e, const Effect& fx);
    void commit_inject(const Event& e, const Effect& fx, VcpuModel& v);
    void commit_entry(const Event& e, const Effect& fx);
    void commit_exit(const Event& e, VcpuModel& v);
    void commit_msr(const Event& e, VcpuModel& v);
    void unsync_all();
    // IPI destination sets (routing.cpp).
    void send_icr(const Event& e, VcpuModel& v);
    void send_pv_ipi(const Event& e, VcpuModel& v);
    void send_hv_ipi(const Event& e, VcpuModel& v);

    std::vector<VcpuModel> vcpus_;
    std::vector<VmModel> vms_;
    static constexpr std::int64_t kDenseIds = 4096;  // KVM's limit on vCPU ids on x86
    // (vm, vcpu id) → slot: dense below kDenseIds, sorted pairs beyond.
    std::vector<std::vector<VcpuSlot>> dense_;  // by VM slot
    std::vector<std::pair<std::int64_t, VcpuSlot>> sparse_;
    IpisInFlight ipis_;
    std::vector<IpiSend> completed_;
    const IpiSend* sent_ = nullptr;
};

}  // namespace irqflow::replay
