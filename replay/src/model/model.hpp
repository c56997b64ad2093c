// The replay's model of the machine: every vCPU's local APIC, PV EOI and SynIC state,
// each VM's IOAPIC, 8259 and routing, what the trace has proven about them, and the
// IPIs in flight. The only mutable machine state of the replay; commit() (or apply())
// is its only writer. Rules and observers read it (replay/README.md, "Structure").
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "clock_skew.hpp"
#include "effect.hpp"
#include "ioapic.hpp"
#include "ipis_in_flight.hpp"
#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"
#include "kvm_pv_eoi.hpp"
#include "lapic.hpp"
#include "late_irr.hpp"
#include "pic8259.hpp"
#include "registers.hpp"
#include "synic.hpp"

namespace irqflow::replay {

struct VcpuModel {
    VmId vm = kUnknownVm;
    std::uint32_t vm_pos = 0;        // its VM's position in the model
    VcpuId id = kUnknownVcpu;
    ApicId apic{0};
    Tid tid{-1};
    Lapic lapic;
    KvmPvEoi pv_eoi;
    Synic synic;
    // What the trace has proven (replay/README.md, "Unknown until proven").
    bool synced = false;             // the state provably matches the guest's
    bool in_hlt = false;             // the last exit was HLT, no entry since, no drop window since
    bool in_l2 = false;              // runs a nested guest: a nested entry, no exit to L1 since
    bool kicked_since_hlt = false;   // a PV kick (KVM_HC_KICK_CPU) arrived since that HLT
    bool resynced_by_wakeup = false; // synced by a HLT wakeup, no exit since
    VectorSet accepted_since_hlt;    // what arrived since that HLT
    int last_eoi_vector = -1;        // the vector of the last kvm_eoi since the last entry, or -1
    std::int64_t last_own_ts = 0;    // the last event of the vCPU's own thread
    std::uint64_t last_own_record = 0;
    std::uint64_t last_entry_record = 0;  // its last kvm_entry (0: none yet), for the diagnoses' windows
    std::int64_t last_entry_ts = 0;
    std::uint64_t own_events = 0;    // events of the vCPU's own thread so far (it runs, or is in the host for it)
    LateIrr late_irr;
    // Accepts from another thread into an empty IRR slot of this synced vCPU, not yet
    // injected: causes whose injection measures the clock skew (clock_skew.hpp).
    struct CrossAccept {
        int vector = -1;
        std::int64_t ts = 0;
        std::int32_t cpu = -1;
    };
    std::array<CrossAccept, 4> cross_accepts{};
    std::uint64_t windows_opened = 0;  // HLT and interrupt-window exits: times the guest could take an interrupt
    // Accepted by another thread since this vCPU's last exit: KVM may or may not have
    // seen them when it chose what to inject and whether to arm PV EOI (the tracepoints
    // race across CPUs).
    VectorSet racing;
    VectorSet accepted_since_entry;  // everything accepted since the last entry
    int interrupted_vector = -1;     // the last exit cut this vector's delivery short (exit_int_info)
    int last_extint_vector = -1;     // the last injection was this 8259 vector (re-injected outside ISR too)
};

struct VmModel {
    VmId id = kUnknownVm;
    std::vector<VcpuSlot> vcpus;  // in the trace's vCPU order
    std::vector<VcpuSlot> by_id;  // vCPU id → slot, for ids below Model::kDenseIds
    std::vector<VcpuSlot> by_apic;  // APIC id → its first vCPU (as KVM's map), for ids below Model::kDenseIds
    Ioapic ioapic;
    Pic8259 pic;
    bool started = false;         // its first kvm_entry was seen
    bool x2apic = false;          // the guest touched x2APIC MSRs (else it uses xAPIC MMIO)
    bool x2apic_cluster = false;  // the guest sends logical (cluster) x2APIC IPIs
    bool apicv_active = false;    // APICv/AVIC runs: deliveries bypass the traced paths
};

class Model {
public:
    // `semantics`: how the host arms PV EOI (Auto is taken as Current).
    explicit Model(const Trace& trace, PvEoiSemantics semantics = PvEoiSemantics::Current);

    // What an event of kind K will do, from the state before it. No change. (Per kind,
    // so the engine's handler of each kind compiles to only what that kind does.)
    template <EventKind K>
    [[gnu::always_inline]] Effect decide(const Event& e) const {
        if constexpr (K == EventKind::ApicAcceptIrq) {
            return decide_accept(e);
        } else if constexpr (K == EventKind::ApicvAcceptIrq) {
            Effect fx;
            fx.vcpu = vcpu_by_apic(e.vm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)));
            fx.outcome = Outcome::AcceptPosted;
            return fx;
        } else if constexpr (!own_thread_kind(K)) {
            return {};  // lost events, APICv inhibits, IOAPIC routes: VM-wide
        } else {
            Effect fx;
            if constexpr (K == EventKind::Entry) {
                if (unstarted_vms_ > 0) {  // (else no entry can be a VM's first: no VM looked up)
                    const VmModel* m = vm(e.vm);
                    fx.starts_vm = m && !m->started;
                    fx.boots_vm = fx.starts_vm && e.get(slot::entry_rip) == kResetVector && proofs_hold();
                }
            }
            fx.vcpu = own_vcpu(e);
            if (fx.vcpu == kNoVcpu) return fx;
            const VcpuModel& v = vcpu(fx.vcpu);
            fx.known = v.synced || fx.boots_vm;
            fx.checkable = v.synced && !vm_of(v).apicv_active;
            if constexpr (K == EventKind::InjVirq) classify_injection(e, v, fx);
            if constexpr (K == EventKind::Eoi) {
                fx.vector = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
                fx.outcome = fx.vector < 0 ? Outcome::EoiNothing : fx.vector >= apic::kVectors ? Outcome::EoiBadVector : Outcome::Eoi;
                // KVM retires the highest vector in service and names it: anything the
                // model has above it was retired unseen. (Below it, the model only lacked
                // the vector's injection: what it has in service may still be.)
                if (fx.outcome == Outcome::Eoi && v.lapic.isr_top() > fx.vector)
                    fx.isr_clear_from = static_cast<std::int16_t>(fx.vector + 1);
            }
            if constexpr (K == EventKind::PvEoi) {
                fx.vector = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
                fx.pv_eoi = v.pv_eoi.peek_use();
                fx.irr_settled_clear = semantics_ == PvEoiSemantics::Current && fx.pv_eoi.enabled && !fx.pv_eoi.armed_current &&
                                       !v.lapic.irr().subset_of(v.accepted_since_entry);
            }
            return fx;
        }
    }
    // Makes the change `fx` (from decide) describes. The IPIs an entry or exit
    // completes are left in completed() until the next entry or exit.
    template <EventKind K>
    [[gnu::always_inline]] void commit(const Event& e, const Effect& fx) {
        if constexpr (K == EventKind::Lost) {
            drop_window_closes();
        } else if constexpr (K == EventKind::ApicvInhibitChanged) {
            commit_apicv_inhibits(e);
        } else if constexpr (K == EventKind::IoapicSetIrq) {
            commit_ioapic_route(e);
        } else if constexpr (K == EventKind::ApicAcceptIrq) {
            commit_accept(e, fx);
        } else if constexpr (K == EventKind::ApicvAcceptIrq) {
            if (fx.vcpu != kNoVcpu) unsync(vcpus_[static_cast<std::size_t>(fx.vcpu.value())]);
        } else if constexpr (K == EventKind::Entry) {
            commit_entry(e, fx);
        } else {
            if constexpr (K == EventKind::Exit) completed_.clear();
            if (fx.vcpu == kNoVcpu) return;
            VcpuModel& v = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
            if constexpr (K == EventKind::Exit) commit_exit(e, v);
            if constexpr (K == EventKind::InjVirq) commit_inject(e, fx, v);
            if constexpr (K == EventKind::Eoi) {
                if (fx.isr_clear_from >= 0) v.lapic.retire_from(fx.isr_clear_from);
                if (fx.outcome == Outcome::EoiNothing) v.lapic.eoi_nothing();
                else if (fx.outcome == Outcome::Eoi) v.lapic.eoi(fx.vector);
                if (fx.outcome != Outcome::EoiBadVector) v.pv_eoi.eoi();
                if (fx.outcome == Outcome::Eoi) v.last_eoi_vector = fx.vector;
            }
            if constexpr (K == EventKind::NestedVmenter) v.in_l2 = true;
            if constexpr (K == EventKind::NestedVmexitInject) v.in_l2 = false;
            if constexpr (K == EventKind::AckIrq)
                if (e.get(slot::ack_irqchip) == slot::kIrqchipIoapic && v.last_eoi_vector >= 0)
                    vm_mut(v.vm)->ioapic.acked(static_cast<int>(e.get(slot::ack_pin).value_or(-1)), v.last_eoi_vector);
            if constexpr (K == EventKind::PvEoi) {
                if (fx.irr_settled_clear) v.lapic.drop_pending(v.lapic.irr().minus(v.accepted_since_entry));
                v.pv_eoi.use();
            }
            if constexpr (K == EventKind::Msr) commit_msr(e, v);
            if constexpr (K == EventKind::Apic)
                if (e.get(slot::apic_rw) == 1) v.lapic.write_register(e.get(slot::apic_reg).value_or(0), e.get(slot::apic_val).value_or(0));
            if constexpr (K == EventKind::Hypercall) {
                sent_ = nullptr;
                if (e.get(slot::hc_nr) == hypercall::kSendIpi) send_pv_ipi(e, v);
            }
            if constexpr (K == EventKind::ApicIpi) {
                sent_ = nullptr;
                send_icr(e, v);
            }
            if constexpr (K == EventKind::HvSendIpi || K == EventKind::HvSendIpiEx) {
                sent_ = nullptr;
                send_hv_ipi(e, v);
            }
            if constexpr (K == EventKind::VcpuWakeup) commit_wakeup(e, v);
            if constexpr (K == EventKind::Pio)
                if (e.get(slot::pio_rw) == 1) vm_mut(v.vm)->pic.write_port(e.get(slot::pio_port).value_or(0), e.get(slot::pio_val).value_or(0));
            v.last_own_ts = e.ts.value();
            v.last_own_record = e.record;
            ++v.own_events;
        }
    }
    template <EventKind K>
    Effect apply_as(const Event& e) {
        const Effect fx = decide<K>(e);
        commit<K>(e, fx);
        return fx;
    }
    // Any kind: decide and commit (the inspector's replayer, tests).
    Effect apply(const Event& e);
    // A ring-buffer drop window opens before the next event (drop_windows.hpp): from
    // here to its Lost marker any event may be missing, on any vCPU.
    void drop_window_opens();
    // Drop windows opened and not yet closed by their Lost marker.
    int open_drop_windows() const { return open_drops_; }
    // Times every vCPU's state was thrown away (drop windows opening and closing): an
    // observer that sees this change knows every vCPU may have just become unknown.
    std::uint64_t track_losses() const { return track_losses_; }
    const ClockSkew& clock_skew() const { return skew_; }
    // The end of the trace: every IPI in flight is complete.
    void finish();
    std::span<const IpiSend> completed() const { return completed_; }
    // The send the last IPI-sending commit recorded (an ICR write, PV IPI or Hyper-V IPI), or null.
    const IpiSend* sent() const { return sent_; }

    std::size_t vcpu_count() const { return vcpus_.size(); }
    // A vCPU (and its VM) the trace revealed after the replay began — a live stream
    // learns them as it goes; a file names them all up front. Its slot (the existing
    // one if the VM has that vCPU id already); its state is unknown until proven.
    VcpuSlot add_vcpu(VmId vm, const VcpuInfo& info);
    // What the stream learnt later about a vCPU: its APIC id (from its EOIs), its thread.
    void learnt(VcpuSlot s, const VcpuInfo& info);
    // A proof of a vCPU's state (reset, INIT, an idle wakeup) holds only in observed
    // time: not while a drop window is open, when events after it may be missing.
    bool proofs_hold() const { return open_drops_ == 0; }
    const VcpuModel& vcpu(VcpuSlot s) const { return vcpus_[static_cast<std::size_t>(s.value())]; }
    // The VM of that id, or null; its position among the VMs, or -1.
    const VmModel* vm(VmId id) const {
        const auto i = static_cast<std::size_t>(id.value());
        // (vm_count_, not vms_.size(): a division by sizeof(VmModel) on every event)
        if (i < vm_count_ && vms_[i].id == id) return &vms_[i];  // ids are positions, as attribution numbers VMs
        return find_vm(id);
    }
    // A vCPU's VM (no lookup: the vCPU knows its position).
    const VmModel& vm_of(const VcpuModel& v) const { return vms_[v.vm_pos]; }
    int vm_index(VmId id) const;
    std::size_t vm_count() const { return vms_.size(); }
    // KVM's IOAPIC-handled vectors of this vCPU (see Ioapic::handles).
    bool ioapic_handles(const VcpuModel& v, int vector) const;
    // The slot of a vCPU by its VM and id, or kNoVcpu.
    VcpuSlot slot(VmId vm, VcpuId id) const { return slot_in(this->vm(vm), vm, id.value()); }
    // The vCPU owning an APIC id in a VM (the first, as KVM's map would), or kNoVcpu.
    // (Every accept asks: a look into the VM's index, not a walk over its vCPUs.)
    VcpuSlot vcpu_by_apic(VmId vm, std::uint32_t apic) const {
        const VmModel* m = this->vm(vm);
        if (!m) return kNoVcpu;
        if (apic < m->by_apic.size()) return m->by_apic[apic];
        return apic < kDenseIds ? kNoVcpu : vcpu_by_sparse_apic(*m, apic);
    }
    // The public snapshot of a vCPU.
    VcpuState state(VcpuSlot s) const;

private:
    // The vCPU whose thread emitted `e`: attributed to it, and from its own thread.
    // Asked by every event of most kinds: one look into own_ answers for VMs numbered by
    // position and vCPU ids up to the highest dense one, own_vcpu_in the rest.
    [[gnu::always_inline]] VcpuSlot own_vcpu(const Event& e) const {
        const auto pos = static_cast<std::uint32_t>(e.vm.value()), id = static_cast<std::uint32_t>(e.vcpu.value());
        if (pos < own_vms_ && id >> own_shift_ == 0) [[likely]] {
            const OwnEntry& o = own_[(std::size_t{pos} << own_shift_) | id];
            return o.tid == e.tid ? o.slot : kNoVcpu;
        }
        return own_vcpu_in(vm(e.vm), e);
    }
    VcpuSlot own_vcpu_in(const VmModel* vm, const Event& e) const {
        const VcpuSlot s = slot_in(vm, e.vm, e.vcpu.value());
        return s != kNoVcpu && vcpu(s).tid == e.tid ? s : kNoVcpu;
    }
    // own_vcpu's table: the slot and thread of (VM position, vCPU id) at
    // [position << own_shift_ | id]; rebuilt when a VM or vCPU is added or a thread learnt.
    struct OwnEntry {
        Tid tid{-1};
        VcpuSlot slot = kNoVcpu;
    };
    void index_own();
    void index_apics(VmModel& m);  // VmModel::by_apic, after a vCPU was added or its APIC id learnt
    VcpuSlot vcpu_by_sparse_apic(const VmModel& m, std::uint32_t apic) const;
    // The slot of vCPU `id` of VM `vm` (its model `m`, null if none), or kNoVcpu.
    [[gnu::always_inline]] VcpuSlot slot_in(const VmModel* m, VmId vm, std::int32_t id) const {
        if (!m || id < 0) return kNoVcpu;
        if (static_cast<std::size_t>(id) < m->by_id.size()) return m->by_id[static_cast<std::size_t>(id)];
        return id >= kDenseIds ? find_sparse(vm, id) : kNoVcpu;
    }
    static constexpr std::int64_t kResetVector = 0xfff0;  // where a vCPU starts after reset (CS:IP f000:fff0)
    void drop_window_closes();
    void add_vm(VmId id);
    // At both ends of a drop window: nothing known, no HLT proves a wakeup, no IPI judged.
    void lose_track();
    Effect decide_accept(const Event& e) const;
    void classify_injection(const Event& e, const VcpuModel& v, Effect& fx) const;
    void commit_apicv_inhibits(const Event& e);
    void commit_ioapic_route(const Event& e);
    void commit_wakeup(const Event& e, VcpuModel& v);
    void note_injection_order(const Event& e, const Effect& fx, VcpuModel& v);
    const VmModel* find_vm(VmId id) const;
    VcpuSlot find_sparse(VmId vm, std::int32_t id) const;
    VmModel* vm_mut(VmId id);
    void commit_accept(const Event& e, const Effect& fx);
    void commit_inject(const Event& e, const Effect& fx, VcpuModel& v);
    void commit_entry(const Event& e, const Effect& fx);
    void commit_exit(const Event& e, VcpuModel& v);
    void commit_msr(const Event& e, VcpuModel& v);
    void unsync(VcpuModel& v);
    void unsync_all();
    // IPI destination sets (routing.cpp).
    void send_icr(const Event& e, VcpuModel& v);
    void send_pv_ipi(const Event& e, VcpuModel& v);
    void send_hv_ipi(const Event& e, VcpuModel& v);
    void add_send(const VcpuModel& v, IpiSend s) {
        const VcpuSlot slot(static_cast<std::int32_t>(&v - vcpus_.data()));
        ipis_.add(slot, std::move(s));
        sent_ = &ipis_.last(slot);
    }

    std::vector<VcpuModel> vcpus_;
    std::vector<VmModel> vms_;
    std::size_t vm_count_ = 0;  // vms_.size()
    std::size_t unstarted_vms_ = 0;  // VMs whose first kvm_entry has not come
    std::vector<OwnEntry> own_;
    std::uint32_t own_vms_ = 0;    // VMs 0 .. own_vms_ − 1 are in own_ (their ids are their positions)
    std::uint32_t own_shift_ = 0;  // vCPU ids below 1 << own_shift_ are
    static constexpr std::int64_t kDenseIds = 4096;  // KVM's limit on vCPU ids on x86
    // (vm, vcpu id) → slot beyond kDenseIds (VmModel::by_id below), sorted.
    std::vector<std::pair<std::int64_t, VcpuSlot>> sparse_;
    IpisInFlight ipis_;  // a sender per vCPU thread
    std::vector<IpiSend> completed_;
    const IpiSend* sent_ = nullptr;
    int open_drops_ = 0;
    std::uint64_t track_losses_ = 0;
    ClockSkew skew_;
    PvEoiSemantics semantics_;
};

}  // namespace irqflow::replay
