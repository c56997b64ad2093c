// Model::decide and Model::commit: what each kind of event does to the machine state.
// IPI destination sets and lookups are in routing.cpp.
#include "model.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "irqflow/capture/exit_reasons.hpp"
#include "registers.hpp"

namespace irqflow::replay {
Model::Model(const Trace& t, PvEoiSemantics semantics)
    : semantics_(semantics == PvEoiSemantics::Original2012 ? semantics : PvEoiSemantics::Current) {
    for (const auto& vm : t.vms) {
        add_vm(vm.id);
        for (const auto& c : vm.vcpus) add_vcpu(vm.id, c);
    }
}

void Model::add_vm(VmId id) {
    if (vm(id)) return;
    VmModel m;
    m.id = id;
    vms_.push_back(std::move(m));
    vm_count_ = vms_.size();
    ++unstarted_vms_;
    index_own();
}

void Model::index_own() {
    constexpr std::size_t kMaxEntries = std::size_t{1} << 20;  // 8 MB; VMs past it take the slower lookup
    std::uint32_t shift = 0;
    for (const auto& m : vms_)
        while ((std::size_t{1} << shift) < m.by_id.size()) ++shift;
    std::uint32_t vms = 0;
    while (vms < vms_.size() && vms_[vms].id == VmId(static_cast<std::int32_t>(vms)) && (std::size_t{vms + 1} << shift) <= kMaxEntries) ++vms;
    own_.assign(std::size_t{vms} << shift, OwnEntry{});
    for (std::uint32_t p = 0; p < vms; ++p) {
        const auto& ids = vms_[p].by_id;
        for (std::size_t id = 0; id < ids.size(); ++id)
            if (ids[id] != kNoVcpu) own_[(std::size_t{p} << shift) | id] = {vcpu(ids[id]).tid, ids[id]};
    }
    own_vms_ = vms;
    own_shift_ = shift;
}

VcpuSlot Model::add_vcpu(VmId vm_id, const VcpuInfo& c) {
    if (c.id.value() < 0) return kNoVcpu;  // cannot be named by any event
    add_vm(vm_id);
    VmModel& m = *vm_mut(vm_id);
    if (const VcpuSlot known = slot_in(&m, vm_id, c.id.value()); known != kNoVcpu) return known;
    const VcpuSlot slot(static_cast<std::int32_t>(vcpus_.size()));
    VcpuModel v;
    v.vm = vm_id;
    v.vm_pos = static_cast<std::uint32_t>(&m - vms_.data());
    v.id = c.id;
    v.apic = c.apic;
    v.tid = c.tid;
    vcpus_.push_back(v);
    m.vcpus.push_back(slot);
    if (c.id.value() < kDenseIds) {
        const auto i = static_cast<std::size_t>(c.id.value());
        if (i >= m.by_id.size()) m.by_id.resize(i + 1, kNoVcpu);
        m.by_id[i] = slot;
    } else {
        const auto key = (std::int64_t{vm_id.value()} << 32) | static_cast<std::uint32_t>(c.id.value());
        sparse_.insert(std::upper_bound(sparse_.begin(), sparse_.end(), key, [](std::int64_t k, const auto& p) { return k < p.first; }),
                       {key, slot});
    }
    ipis_.add_sender(c.tid, slot);
    index_own();
    index_apics(m);
    return slot;
}

void Model::learnt(VcpuSlot s, const VcpuInfo& c) {
    auto& v = vcpus_[static_cast<std::size_t>(s.value())];
    if (v.apic != c.apic) {
        v.apic = c.apic;
        index_apics(vms_[v.vm_pos]);
    }
    if (v.tid != c.tid) {
        v.tid = c.tid;
        ipis_.add_sender(c.tid, s);
        index_own();
    }
}

Effect Model::decide_accept(const Event& e) const {
    Effect fx;
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

void Model::classify_injection(const Event& e, const VcpuModel& v, Effect& fx) const {
    const int vec = fx.vector = static_cast<int>(e.get(slot::inj_vector).value_or(-1));
    // Kernels before the `reinjected` field: the same vector right after an exit whose
    // exit_int_info shows its delivery was cut short is a re-injection.
    const auto flag = e.get(slot::inj_reinjected);
    if (v.in_l2) fx.outcome = Outcome::InjectNested;
    else if (e.get(slot::inj_soft).value_or(0)) fx.outcome = Outcome::InjectSoft;
    else if (flag ? *flag != 0 : vec == v.interrupted_vector) {
        fx.outcome = Outcome::Reinject;
        fx.failed_delivery = vec == v.interrupted_vector;
        fx.reinject_in_service = vec >= apic::kFirstLegalVector && vec < apic::kVectors && !v.lapic.isr().test(vec) &&
                                 vec != v.last_extint_vector;
    }
    else if (vec < 0 || vec >= apic::kVectors) fx.outcome = Outcome::InjectBadVector;
    // Not pending in the local APIC while the 8259 can deliver to this vCPU (APIC
    // software-disabled, or LVT0 in ExtINT mode) and the vector is one the PIC was
    // programmed with: an ExtINT delivery, acknowledged by the PIC.
    else if (!v.lapic.irr().test(vec) && (!v.lapic.software_enabled() || v.lapic.lvt0_extint()) && vm(v.vm)->pic.delivers(vec))
        fx.outcome = Outcome::InjectExtInt;
    else fx.outcome = v.synic.auto_eoi(vec) ? Outcome::InjectedAutoEoi : Outcome::Injected;
    if (fx.outcome != Outcome::Injected && fx.outcome != Outcome::InjectedAutoEoi) return;
    fx.pending = v.lapic.irr().test(vec);
    fx.late_irr = !fx.pending && v.late_irr.mark().vector == vec && !v.lapic.isr().test(vec);
    VectorSet irr = v.lapic.irr();
    if (fx.late_irr) {  // maybe pending: judged as pending, priority rules included
        fx.pending = true;
        irr.set(vec);
    }
    fx.deliverable = apic_deliverable(irr, v.lapic.ppr());
    fx.in_service = v.lapic.isr_top();
    // The vector KVM should have injected: the highest deliverable one — unless that one
    // raced in from another CPU since the vCPU's last exit (KVM may have looked before it
    // landed) and the injected vector is the highest deliverable without the racers.
    fx.expected = fx.deliverable;
    if (fx.deliverable != vec && fx.deliverable >= 0 && v.racing.test(fx.deliverable)) {
        VectorSet without = irr.minus(v.racing);
        if (v.racing.test(vec)) without.set(vec);
        if (apic_deliverable(without, v.lapic.ppr()) == vec) fx.expected = vec;
    }
    // Recovery: a nested injection not above the class in service proves the vectors in
    // service from its class up were retired unseen; passing over a higher deliverable
    // vector proves that one was not pending.
    if (fx.in_service >= 0 && priority_class(vec) <= priority_class(fx.in_service))
        fx.isr_clear_from = static_cast<std::int16_t>(vec & 0xf0);
    else if (fx.pending && fx.expected >= 0 && fx.expected != vec)
        fx.drop_irr = static_cast<std::int16_t>(fx.expected);
}

void Model::commit_apicv_inhibits(const Event& e) {
    VmModel* vm = vm_mut(e.vm);
    if (!vm) return;
    vm->apicv_active = e.get(slot::apicv_inhibits).value_or(1) == 0;  // no inhibit left: APICv/AVIC runs
    if (vm->apicv_active)
        for (auto s : vm->vcpus) unsync(vcpus_[static_cast<std::size_t>(s.value())]);
}

void Model::commit_ioapic_route(const Event& e) {
    if (VmModel* vm = vm_mut(e.vm))
        vm->ioapic.route(static_cast<int>(e.get(slot::ioapic_pin).value_or(-1)),
                         {static_cast<int>(e.get(slot::ioapic_vec).value_or(0)), e.get(slot::ioapic_tm).value_or(0) != 0,
                          static_cast<std::uint32_t>(e.get(slot::ioapic_dst).value_or(0)), e.get(slot::ioapic_dest_mode).value_or(0) != 0});
}

// The vCPU really blocked after HLT (replay/README.md, "Unknown until proven"). KVM
// blocks only with nothing injectable, so no late IRR write is pending, every pending
// vector now was accepted since that HLT (and is in the trace), and an idle HLT is
// outside any interrupt handler, so nothing is in service. A halt woken by a PV kick is
// a spinlock wait, which may sit with interrupts off inside a handler and vectors
// pending: it proves nothing.
void Model::commit_wakeup(const Event& e, VcpuModel& v) {
    if (!v.in_hlt || v.kicked_since_hlt || e.get(slot::wakeup_waited).value_or(0) != 1) return;
    v.late_irr.blocked();
    if (v.synced || vm(v.vm)->apicv_active || !proofs_hold()) return;
    v.lapic.idle_since(v.accepted_since_hlt);
    v.pv_eoi.eoi();
    v.synced = true;
    v.resynced_by_wakeup = true;
}

namespace {
using Apply = Effect (Model::*)(const Event&);
template <std::size_t... K>
constexpr std::array<Apply, sizeof...(K)> apply_table(std::index_sequence<K...>) {
    return {&Model::apply_as<static_cast<EventKind>(K)>...};
}
constexpr auto kApply = apply_table(std::make_index_sequence<static_cast<std::size_t>(EventKind::Count_)>());
}  // namespace

Effect Model::apply(const Event& e) { return (this->*kApply[static_cast<std::size_t>(e.kind)])(e); }

void Model::commit_accept(const Event& e, const Effect& fx) {
    const int dm = static_cast<int>(e.get(slot::accept_dm).value_or(0));
    // an IPI being sent from this thread collects its destinations
    ipis_.received(e.tid, fx.vector, dm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)), e.record);
    if (fx.vcpu == kNoVcpu) return;
    VcpuModel& d = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
    if (fx.outcome == Outcome::AcceptInit) {
        d.lapic.reset();
        d.pv_eoi.eoi();
        d.synced = proofs_hold();
    } else if (fx.outcome == Outcome::AcceptNotInIrr && dm == apic::kDmRemoteRead) {
        d.kicked_since_hlt = true;  // KVM delivers a PV kick (KVM_HC_KICK_CPU) in this mode
    } else if (fx.outcome == Outcome::Accepted) {
        d.lapic.accept(fx.vector, fx.level);
        d.accepted_since_hlt.set(fx.vector);
        d.accepted_since_entry.set(fx.vector);
        const bool cross = e.tid != d.tid;
        if (cross) d.racing.set(fx.vector);
        if (cross && d.synced && fx.coalesced) d.late_irr.coalesced_accept(fx.vector, e.ts.value(), e.record);
        else d.late_irr.accepted(fx.vector);
        if (cross && d.synced && !fx.coalesced) {
            // a cause for the clock skew: the slot of this vector, else a free or the oldest one
            auto* slot = &d.cross_accepts[0];
            for (auto& c : d.cross_accepts) {
                if (c.vector == fx.vector || c.vector < 0) {
                    slot = &c;
                    break;
                }
                if (c.ts < slot->ts) slot = &c;
            }
            *slot = {fx.vector, e.ts.value(), e.cpu.value()};
        }
    }
}

void Model::commit_inject(const Event& e, const Effect& fx, VcpuModel& v) {
    if (fx.outcome == Outcome::InjectSoft || fx.outcome == Outcome::InjectNested) return;
    v.interrupted_vector = -1;
    switch (fx.outcome) {
    case Outcome::Reinject:
        if (fx.reinject_in_service) v.lapic.inject(fx.vector, false);
        v.pv_eoi.reinjected();
        v.late_irr.reinjected(fx.vector);
        break;
    case Outcome::InjectExtInt: v.last_extint_vector = fx.vector; break;
    case Outcome::Injected:
    case Outcome::InjectedAutoEoi: {
        v.last_extint_vector = -1;
        const bool auto_eoi = fx.outcome == Outcome::InjectedAutoEoi;
        note_injection_order(e, fx, v);
        if (fx.isr_clear_from >= 0) v.lapic.retire_from(fx.isr_clear_from);
        if (fx.drop_irr >= 0) {
            VectorSet passed_over;
            passed_over.set(fx.drop_irr);
            v.lapic.drop_pending(passed_over);
        }
        v.lapic.inject(fx.vector, auto_eoi);
        if (!auto_eoi) v.pv_eoi.injected(fx.vector, ioapic_handles(v, fx.vector));
        break;
    }
    default: break;
    }
}

// What an injection into ISR tells the clock-skew bound and the late-IRR mark, before
// the vector moves.
void Model::note_injection_order(const Event& e, const Effect& fx, VcpuModel& v) {
    for (auto& c : v.cross_accepts)
        if (c.vector == fx.vector) {
            if (fx.pending && !fx.late_irr) skew_.pair(c.cpu, e.cpu.value(), e.ts.value() - c.ts);
            c = {};
        }
    const int marked = v.late_irr.mark().vector;
    if (fx.late_irr) v.late_irr.used();
    else if (marked > fx.vector && priority_class(marked) > priority_class(v.lapic.ppr())) v.late_irr.passed_over();
    v.late_irr.injected(fx.vector, e.ts.value(), e.record, v.last_own_ts, std::max<std::int64_t>(skew_.bound_ns(), 0));
}

void Model::commit_entry(const Event& e, const Effect& fx) {
    completed_.clear();
    if (fx.starts_vm) {
        VmModel* vm = vm_mut(e.vm);
        vm->started = true;
        --unstarted_vms_;
        if (fx.boots_vm)  // recorded from boot: every APIC of the VM starts empty and software-disabled
            for (auto s : vm->vcpus) {
                auto& v = vcpus_[static_cast<std::size_t>(s.value())];
                v.synced = true;
                v.lapic.set_software_enabled(false);
            }
    }
    if (fx.vcpu == kNoVcpu) return;
    VcpuModel& v = vcpus_[static_cast<std::size_t>(fx.vcpu.value())];
    ipis_.complete(fx.vcpu, completed_, e.record, e.ts);
    if (e.get(slot::entry_rip) == kResetVector && (!v.lapic.isr().empty() || !v.lapic.irr().empty() || !v.synced)) {
        // entering at the reset vector: a (re)booted vCPU, its local APIC freshly reset
        v.lapic.reset();
        v.pv_eoi.eoi();
        v.synced = proofs_hold();
    }
    v.in_hlt = false;
    v.last_own_ts = e.ts.value();
    v.last_own_record = e.record;
    v.last_entry_record = e.record;
    v.last_entry_ts = e.ts.value();
    ++v.own_events;
    v.accepted_since_entry.reset();
    v.last_eoi_vector = -1;
    v.late_irr.entered();
    // IRR counts as empty for PV EOI arming if only vectors racing in from other CPUs are
    // there. (Only an entry that processes events can arm: the rest need not ask.)
    const bool round = v.pv_eoi.event_round();
    const bool settled_empty = round && v.lapic.irr().subset_of(v.racing);
    const int cached = v.pv_eoi.isr_cache();
    v.pv_eoi.before_entry(settled_empty, settled_empty && cached >= 0 && ioapic_handles(v, cached),
                          v.lapic.irr_count() > 0 && v.lapic.deliverable() < 0);
}

void Model::commit_exit(const Event& e, VcpuModel& v) {
    ipis_.complete(VcpuSlot(static_cast<std::int32_t>(&v - vcpus_.data())), completed_, e.record, e.ts);
    v.racing.reset();
    v.interrupted_vector = apic::interrupted_delivery(vectoring_info(e).value_or(0));
    const auto k = exit_class(e);
    // The guest asks for an interrupt window right after an idle wakeup while the model
    // has nothing it could take: it has something pending we did not see (the halt was
    // not idle after all, e.g. a spinlock wait woken otherwise than by a traced kick).
    if (v.resynced_by_wakeup && k == ExitClass::InterruptWindow && v.lapic.deliverable() < 0) unsync(v);
    v.late_irr.exited(k == ExitClass::ExternalInterrupt);
    v.resynced_by_wakeup = false;
    if (k == ExitClass::Hlt) {
        v.in_hlt = true;
        v.kicked_since_hlt = false;
        v.accepted_since_hlt.reset();
    }
    if (k == ExitClass::Hlt || k == ExitClass::InterruptWindow) ++v.windows_opened;
}

void Model::commit_msr(const Event& e, VcpuModel& v) {
    if (e.get(slot::msr_write) != 1) return;
    const auto ecx = static_cast<std::uint32_t>(e.get(slot::msr_ecx).value_or(0));
    const auto data = e.get(slot::msr_data).value_or(0);
    if (ecx >= apic::kMsrX2apicFirst && ecx <= apic::kMsrX2apicLast) vm_mut(v.vm)->x2apic = true;
    if (ecx == msr::kKvmPvEoiEn || ecx == msr::kHvVpAssistPage) v.pv_eoi.write_msr(data, ecx == msr::kHvVpAssistPage);
    else if (ecx >= msr::kHvSint0 && ecx <= msr::kHvSint15) v.synic.write_sint(data);
    else v.lapic.write_msr(ecx, data);
}

void Model::unsync(VcpuModel& v) {
    v.synced = false;
    v.late_irr.reset();
    v.cross_accepts = {};
}

void Model::unsync_all() {
    for (auto& v : vcpus_) unsync(v);
}

// Events may be missing from here on any vCPU: nothing is known, no HLT proves an idle
// wakeup across the window, and no IPI in flight can be judged complete.
void Model::drop_window_opens() {
    ++open_drops_;
    lose_track();
}

// The Lost marker: the window is over. What was sent inside it cannot be judged, and a
// HLT before the marker cannot prove what happened inside the window.
void Model::drop_window_closes() {
    if (open_drops_ > 0) --open_drops_;
    lose_track();
}

void Model::lose_track() {
    ++track_losses_;
    unsync_all();
    ipis_.drop_all();
    for (auto& v : vcpus_) {
        v.in_l2 = false;
        v.in_hlt = false;
        v.resynced_by_wakeup = false;
        v.accepted_since_hlt.reset();
    }
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
