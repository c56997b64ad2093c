// Event dispatch and the LAPIC / PV EOI rules. IPI fan-out lives in ipi.cpp.
#include "engine.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "irqflow/capture/exit_reasons.hpp"

namespace irqflow::replay {
namespace {

constexpr std::uint32_t kMsrPvEoiEn = 0x4b564d04;   // MSR_KVM_PV_EOI_EN
constexpr std::uint32_t kMsrHvVpAssist = 0x40000073;
constexpr std::uint32_t kMsrHvEoi = 0x40000070;
constexpr std::uint32_t kMsrHvSint0 = 0x40000090;
constexpr std::uint32_t kMsrX2apicTpr = 0x808, kMsrX2apicEoi = 0x80b, kMsrX2apicSpiv = 0x80f;
constexpr int kRegTpr = 0x80, kRegEoi = 0xb0, kRegLdr = 0xd0, kRegDfr = 0xe0, kRegSpiv = 0xf0, kRegLvt0 = 0x350;

std::string vec_str(int v) {
    if (v < 0) return "nothing";
    char b[16];
    std::snprintf(b, sizeof b, "0x%02x", v);
    return b;
}

std::string set_str(const VectorSet& s) {
    std::string out = "{";
    for (int v = 255; v >= 0; --v)
        if (s.test(v)) out += (out.size() > 1 ? "," : "") + vec_str(v);
    return out + "}";
}

bool is_hlt_exit(const Event& e) {
    auto r = e.get(slot::exit_reason);
    auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
    return r && ((isa == kIsaSvm && *r == 0x78) || (isa == kIsaVmx && (*r & 0xffff) == 12));
}

}  // namespace

const char* to_string(EoiPath p) {
    switch (p) {
    case EoiPath::X2apicMsr: return "x2apic-msr";
    case EoiPath::XapicMmio: return "xapic-mmio";
    case EoiPath::HypervMsr: return "hyperv-msr";
    case EoiPath::PvEoi: return "pv-eoi";
    case EoiPath::Other: break;
    }
    return "other";
}

Engine::Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics) : t_(t), o_(o), sem_(semantics) {
    r_.semantics = semantics;
    index_.resize(t.vms.size());
    for (const auto& vm : t.vms)
        for (const auto& c : vm.vcpus) {
            Vcpu v;
            v.s.vm = vm.id;
            v.s.vcpu = c.id;
            v.s.apic = c.apic;
            v.tid = c.tid;
            auto& row = index_[static_cast<std::size_t>(vm.id.value())];
            if (static_cast<std::size_t>(c.id.value()) >= row.size()) row.resize(static_cast<std::size_t>(c.id.value()) + 1, -1);
            row[static_cast<std::size_t>(c.id.value())] = static_cast<int>(vcpus_.size());
            vcpus_.push_back(v);
        }
    ioapic_.resize(t.vms.size());
    ioapic_candidates_.resize(t.vms.size());
    pic_.resize(t.vms.size());
    vm_x2apic_cluster_.resize(t.vms.size());
    vm_x2apic_.resize(t.vms.size());
    vm_seen_.resize(t.vms.size());
    mask_vectors_.resize(t.vms.size());
    vm_apicv_active_.resize(t.vms.size());
    a2i_.resize(256);
    i2e_.resize(256);
}

Vcpu* Engine::vcpu_of(const Event& e) {
    const auto vm = e.vm.value(), id = e.vcpu.value();
    if (vm < 0 || id < 0 || static_cast<std::size_t>(vm) >= index_.size()) return nullptr;
    const auto& row = index_[static_cast<std::size_t>(vm)];
    if (static_cast<std::size_t>(id) >= row.size() || row[static_cast<std::size_t>(id)] < 0) return nullptr;
    Vcpu& v = vcpus_[static_cast<std::size_t>(row[static_cast<std::size_t>(id)])];
    return v.tid == e.tid ? &v : nullptr;  // only events from the vCPU's own thread
}

Vcpu* Engine::vcpu_by_apic(VmId vm, std::uint32_t apic) {
    for (auto& v : vcpus_)
        if (v.s.vm == vm && v.s.apic.value() == apic) return &v;
    return nullptr;
}

std::vector<Vcpu*> Engine::vcpus_of_vm(VmId vm) {
    std::vector<Vcpu*> out;
    for (auto& v : vcpus_)
        if (v.s.vm == vm) out.push_back(&v);
    return out;
}

// KVM's ioapic_handled_vectors for this vCPU: vectors of level-triggered pins (and the
// RTC pin, whatever its trigger) whose destination is this vCPU. Linux may give the
// same vector to an edge pin on another CPU (seen in the samples: 0x22 for the serial
// port on vCPU 1 and for virtio-blk, level, on vCPU 2), so it is per vCPU.
bool Engine::ioapic_handles(const Vcpu& v, int vector) const {
    if (vector < 16 || v.s.vm.value() < 0 || static_cast<std::size_t>(v.s.vm.value()) >= ioapic_.size()) return false;
    if (!ioapic_candidates_[static_cast<std::size_t>(v.s.vm.value())].test(vector)) return false;
    const auto& pins = ioapic_[static_cast<std::size_t>(v.s.vm.value())];
    for (std::size_t i = 0; i < pins.size(); ++i) {
        const auto& p = pins[i];
        if (p.vec != vector || !(p.level || i == 8)) continue;
        // an unknown logical match counts as "not handled": never a finding we cannot back
        if (p.logical ? logical_match(v, p.dst).value_or(false) : (p.dst == v.s.apic.value() || p.dst == 0xff)) return true;
    }
    return false;
}

std::optional<bool> Engine::logical_match(const Vcpu& v, std::uint32_t dst) {
    if (!v.ldr_known) return std::nullopt;
    if (dst == 0xff) return true;
    if (v.dfr_cluster) return (dst >> 4) == (v.ldr >> 4) && (dst & v.ldr & 0xf) != 0;
    return (dst & v.ldr) != 0;
}

void Engine::unsync_all() {
    for (auto& v : vcpus_) {
        v.s.synced = false;
        v.isr_known = false;
    }
}

void Engine::report(Rule r, const Event& e, VmId vm, VcpuId vcpu, std::string expected, std::string observed,
                    std::vector<std::pair<std::uint64_t, std::string>> chain) {
    Finding f;
    f.rule = r;
    f.vm = vm;
    f.vcpu = vcpu;
    f.ts = e.ts;
    f.record = e.record;
    f.expected = std::move(expected);
    f.observed = std::move(observed);
    f.chain = std::move(chain);
    r_.findings.push_back(std::move(f));
}

void Engine::run() {
    for (const auto& e : t_.events) on_event(e);
    finish();
}

// What the trace says about its start, learnt as it goes (one pass over the events):
// a VM whose first entry is at the reset vector was recorded from boot (all its APICs
// empty); a vector a guest sends to several CPUs at once marks ICR runs of it as
// multi-destination sends (for the PV IPI prediction).
void Engine::learn(const Event& e) {
    const auto vm = e.vm.value();
    if (vm < 0 || static_cast<std::size_t>(vm) >= vm_seen_.size()) return;
    if (e.kind == EventKind::Entry && !vm_seen_[static_cast<std::size_t>(vm)]) {
        vm_seen_[static_cast<std::size_t>(vm)] = true;
        if (e.get(slot::entry_rip) == 0xfff0)
            for (auto* v : vcpus_of_vm(e.vm)) {
                v->s.synced = true;
                v->isr_known = true;
                v->apic_enabled = false;  // SPIV resets to software-disabled
            }
    } else if (e.kind == EventKind::ApicIpi) {
        const auto dest = static_cast<std::uint32_t>(e.get(slot::ipi_dest_id).value_or(0));
        const bool logical = e.get(slot::ipi_dest_mode).value_or(0) != 0;
        const auto bits = std::popcount(dest > 0xff ? (dest & 0xffffu) : (dest & 0xffu));
        if (e.get(slot::ipi_shorthand).value_or(0) >= 2 || (logical && bits >= 2))
            mask_vectors_[static_cast<std::size_t>(vm)].set(static_cast<int>(e.get(slot::ipi_vec).value_or(0)));
    } else if (e.kind == EventKind::Hypercall && e.get(slot::hc_nr) == 10) {
        mask_vectors_[static_cast<std::size_t>(vm)].set(static_cast<int>(e.get(slot::hc_a3).value_or(0) & 0xff));
    }
}

void Engine::on_event(const Event& e) {
    ++r_.stats.events;
    if (e.kind == EventKind::Entry || e.kind == EventKind::ApicIpi || e.kind == EventKind::Hypercall) learn(e);
    switch (e.kind) {
    case EventKind::Lost: on_gap(e); return;
    case EventKind::ApicvInhibitChanged: on_apicv(e); return;
    case EventKind::IoapicSetIrq: on_ioapic(e); return;
    case EventKind::ApicAcceptIrq: on_accept(e); return;
    case EventKind::ApicvAcceptIrq:  // posted interrupt: the hardware does the rest, untraced
        if (auto* d = vcpu_by_apic(e.vm, static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0)))) d->s.synced = false;
        return;
    default: break;
    }
    Vcpu* v = vcpu_of(e);
    if (!v) {
        // still part of what the trace holds: `check` reports them as not checked
        if (e.kind == EventKind::InjVirq) {
            ++r_.stats.injections;
            if (e.get(slot::inj_soft).value_or(0)) ++r_.stats.soft_injections;
            else if (e.get(slot::inj_reinjected).value_or(0)) ++r_.stats.reinjections;
        } else if (e.kind == EventKind::Eoi) {
            ++r_.stats.eois;
            if (e.get(slot::eoi_vector).value_or(-1) < 0) ++r_.stats.eoi_nothing_in_service;
        }
        return;
    }
    if (!v->s.synced) ++r_.stats.unsynced_events;
    // An EOI's path shows in what follows it on the thread: kvm_pv_eoi, or the MSR write
    // that carried it (level EOIs first broadcast to the IOAPIC: kvm_ack_irq and the
    // re-assertion come in between, so only these events decide).
    const bool decides = e.kind == EventKind::Msr || e.kind == EventKind::Entry || e.kind == EventKind::Exit ||
                         e.kind == EventKind::InjVirq || e.kind == EventKind::Eoi;
    if (v->pending_eoi && decides) {
        EoiPath p = v->mmio_eoi_write ? EoiPath::XapicMmio : EoiPath::Other;
        if (e.kind == EventKind::Msr && e.get(slot::msr_write) == 1) {
            auto ecx = e.get(slot::msr_ecx).value_or(0);
            if (ecx == kMsrX2apicEoi) p = EoiPath::X2apicMsr;
            if (ecx == kMsrHvEoi) p = EoiPath::HypervMsr;
        }
        resolve_eoi_path(*v, p);
    }
    // A multi-destination send without PV IPI is a run of ICR writes with nothing but
    // their own exits in between; anything else the vCPU does ends the run.
    if (v->icr_group.writes) {
        bool part = e.kind == EventKind::Entry || e.kind == EventKind::ApicIpi || e.kind == EventKind::Apic ||
                    e.kind == EventKind::Mmio || e.kind == EventKind::PageFault || e.kind == EventKind::Other;
        if (e.kind == EventKind::Exit) {
            const auto reason = e.get(slot::exit_reason).value_or(-1);
            const auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
            part = isa == kIsaSvm ? (reason == 0x7c || reason == 0x400) : ((reason & 0xffff) == 32 || (reason & 0xffff) == 44 || (reason & 0xffff) == 56);
        }
        if (e.kind == EventKind::Msr) part = e.get(slot::msr_ecx) == 0x830;
        if (!part) close_icr_group(*v);
    }
    switch (e.kind) {
    case EventKind::InjVirq: on_inject(e, *v); break;
    case EventKind::Eoi: on_eoi(e, *v); break;
    case EventKind::PvEoi: on_pv_eoi(e, *v); break;
    case EventKind::Entry: on_entry(e, *v); break;
    case EventKind::Exit: on_exit(e, *v); break;
    case EventKind::Msr: on_msr(e, *v); break;
    case EventKind::Apic: on_apic(e, *v); break;
    case EventKind::Hypercall: on_hypercall(e, *v); break;
    case EventKind::ApicIpi: on_icr(e, *v); break;
    case EventKind::HvSendIpi:
    case EventKind::HvSendIpiEx: on_hv_ipi(e, *v); break;
    case EventKind::VcpuWakeup: on_wakeup(e, *v); break;
    case EventKind::Pio: on_pio(e); break;
    case EventKind::Mmio:
        if (e.get(0) == 2 && (e.get(2).value_or(0) & ~0xfffLL) == 0xfee00000LL && (e.get(2).value_or(0) & 0xff0) == kRegEoi)
            v->mmio_eoi_write = true;
        break;
    default: break;
    }
}

void Engine::on_accept(const Event& e) {
    const auto apic = static_cast<std::uint32_t>(e.get(slot::accept_apicid).value_or(0));
    const int vec = static_cast<int>(e.get(slot::accept_vec).value_or(0));
    const int dm = static_cast<int>(e.get(slot::accept_dm).value_or(0));
    const bool level = e.get(slot::accept_tm).value_or(0) != 0;
    // an IPI being sent from this thread collects its destinations
    auto it = ipis_.find(e.tid.value());
    if (it != ipis_.end())
        for (auto& p : it->second)
            if (p.vector == vec && p.dm == dm) p.received.insert(apic);
    Vcpu* d = e.vm == kUnknownVm ? nullptr : vcpu_by_apic(e.vm, apic);
    if (!d) {
        if (e.vm != kUnknownVm && !t_.vms.empty())
            report(Rule::AcceptUnknownApic, e, e.vm, kUnknownVcpu, "an APIC id owned by a vCPU of vm" + std::to_string(e.vm.value()),
                   "accept for APIC id " + std::to_string(apic) + ", vector " + vec_str(vec));
        return;
    }
    if (dm == 5) {  // INIT resets the local APIC
        d->s.irr.reset();
        d->s.isr.reset();
        d->s.tmr.reset();
        d->isr_cache = -1;
        d->s.synced = true;
        d->isr_known = true;
        d->apic_enabled = false;
        return;
    }
    if (dm != 0 && dm != 1) return;  // NMI, SMI, SIPI, ExtINT: not through IRR/ISR
    if (vec < 16) {
        if (d->s.synced) report(Rule::VectorIllegal, e, d->s.vm, d->s.vcpu, "vector >= 16", "accept of vector " + vec_str(vec));
        return;
    }
    if (level && d->level_eoi_just_done && vec == d->level_vector) {
        if (++d->level_rounds == o_.level_storm)
            report(Rule::LevelStorm, e, d->s.vm, d->s.vcpu, "the level line to drop after the EOI",
                   "vector " + vec_str(vec) + " re-asserted right after " + std::to_string(d->level_rounds) + " EOIs in a row");
    } else if (level) {
        d->level_rounds = 0;
    }
    d->level_eoi_just_done = false;
    if (d->s.irr.test(vec)) ++r_.stats.coalesced_accepts;
    d->s.irr.set(vec);
    if (level) d->s.tmr.set(vec);
    else d->s.tmr.clear(vec);
    d->accepted_since_hlt.set(vec);
    if (e.tid != d->tid) d->racing.set(vec);
    if (!d->accepted_at[static_cast<std::size_t>(vec)]) {
        d->accepted_at[static_cast<std::size_t>(vec)] = e.ts.value();
        d->accept_record[static_cast<std::size_t>(vec)] = e.record;
        d->accept_ts_for_record[static_cast<std::size_t>(vec)] = e.ts.value();
    }
}

void Engine::on_inject(const Event& e, Vcpu& v) {
    const int vec = static_cast<int>(e.get(slot::inj_vector).value_or(-1));
    ++r_.stats.injections;
    if (e.get(slot::inj_soft).value_or(0)) { ++r_.stats.soft_injections; return; }
    // Kernels before the `reinjected` field: the same vector right after an exit whose
    // exit_int_info shows its delivery was cut short is a re-injection.
    const auto flag = e.get(slot::inj_reinjected);
    const bool reinjected = flag ? *flag != 0 : vec == v.interrupted_vector;
    v.interrupted_vector = -1;
    if (reinjected) {
        ++r_.stats.reinjections;
        if (v.s.synced && !v.s.isr.test(vec) && vec != v.last_extint_vector)
            report(Rule::InjReinjectNotInService, e, v.s.vm, v.s.vcpu, "re-injection of a vector in service " + set_str(v.s.isr),
                   "re-injection of " + vec_str(vec));
        if (vec == v.reinject_vector) {
            if (++v.reinject_run == o_.reinject_loop)
                report(Rule::ReinjectLoop, e, v.s.vm, v.s.vcpu, "the guest to take the interrupt",
                       vec_str(vec) + " re-injected " + std::to_string(v.reinject_run) + " times in a row");
        } else {
            v.reinject_vector = vec;
            v.reinject_run = 1;
        }
        return;
    }
    v.reinject_run = 0;
    v.reinject_vector = -1;
    if (vec < 0 || vec > 255) return;
    const auto u = static_cast<std::size_t>(vec);
    if (!v.s.irr.test(vec) && (!v.apic_enabled || v.lvt0_extint) && extint_vector(v.s.vm, vec)) {
        // Not pending in the local APIC, while the 8259 PIC can deliver to this vCPU
        // (APIC software-disabled, or LVT0 in ExtINT mode) and the vector is one the
        // PIC was programmed with: an ExtINT delivery, acknowledged by the PIC.
        ++r_.stats.extint_injections;
        v.last_extint_vector = vec;
        return;
    }
    v.last_extint_vector = -1;
    if (v.s.synced && !vm_apicv_active_[static_cast<std::size_t>(v.s.vm.value())]) {
        ++r_.stats.injections_checked;
        auto chain = [&] {  // built only for a finding
            std::vector<std::pair<std::uint64_t, std::string>> c;
            if (v.accept_record[u]) c.push_back({v.accept_record[u], "accepted " + vec_str(vec)});
            return c;
        };
        int expected = v.s.deliverable();
        if (expected != vec && expected >= 0 && v.racing.test(expected)) {
            // the higher vector may have landed after KVM looked: judge without it
            VcpuState without = v.s;
            const bool keep = v.racing.test(vec);
            without.irr = without.irr.minus(v.racing);
            if (keep) without.irr.set(vec);
            if (without.deliverable() == vec) expected = vec;
        }
        if (vec < 16) {
            report(Rule::VectorIllegal, e, v.s.vm, v.s.vcpu, "vector >= 16", "injection of " + vec_str(vec));
        } else if (!v.s.irr.test(vec)) {
            report(Rule::InjNotPending, e, v.s.vm, v.s.vcpu, "injection of a pending vector: IRR " + set_str(v.s.irr),
                   "injection of " + vec_str(vec), chain());
        } else if (expected < 0) {
            report(Rule::InjBlockedByPriority, e, v.s.vm, v.s.vcpu,
                   "no injection: PPR " + vec_str(v.s.ppr()) + " blocks IRR " + set_str(v.s.irr),
                   "injection of " + vec_str(vec), chain());
        } else if (expected != vec) {
            report(Rule::InjNotHighest, e, v.s.vm, v.s.vcpu, "injection of " + vec_str(expected) + " (highest deliverable in IRR " + set_str(v.s.irr) + ")",
                   "injection of " + vec_str(vec), chain());
        } else if (!v.s.isr.empty() && priority_class(vec) <= priority_class(v.s.isr.highest())) {
            report(Rule::IsrOrder, e, v.s.vm, v.s.vcpu, "a vector of a class above " + vec_str(v.s.isr.highest()),
                   "nested injection of " + vec_str(vec), chain());
        }
    }
    if (v.accepted_at[u]) {
        if (o_.collect_latency) a2i_[u].push_back(e.ts.value() - v.accepted_at[u]);
        v.accepted_at[u] = 0;
    }
    v.s.irr.clear(vec);
    if (v.synic_auto_eoi.test(vec)) {  // auto-EOI: KVM takes it out of IRR and nothing enters ISR
        ++r_.stats.auto_eoi_injections;
        return;
    }
    v.s.isr.set(vec);
    v.isr_cache = vec;
    if (o_.collect_details) {
        InterruptRecord ir;
        ir.vm = v.s.vm;
        ir.vcpu = v.s.vcpu;
        ir.vector = vec;
        ir.accept_record = v.accept_record[u];
        ir.accept_ts = v.accept_ts_for_record[u];
        ir.inject_record = e.record;
        ir.inject_ts = e.ts.value();
        ir.nesting_depth = v.s.isr.count();
        ir.level = v.s.tmr.test(vec);
        r_.interrupts.push_back(std::move(ir));
        v.open_interrupt[u] = static_cast<std::int64_t>(r_.interrupts.size());
    }
    v.injected_at[u] = e.ts.value();
    v.inject_record[u] = e.record;
    v.no_eoi_reported_at[u] = 0;
    r_.stats.max_nesting = std::max(r_.stats.max_nesting, v.s.isr.count());
    // 2012 series: armed at injection unless the IOAPIC needs this EOI
    v.armed_2012 = v.s.pv_eoi_enabled && !ioapic_handles(v, vec);
}

void Engine::resolve_eoi_path(Vcpu& v, EoiPath p) {
    ++r_.stats.eois_by_path[to_string(p)];
    v.pending_eoi.reset();
    if (v.eoi_interrupt) {
        r_.interrupts[static_cast<std::size_t>(v.eoi_interrupt - 1)].eoi_path = to_string(p);
        v.eoi_interrupt = 0;
    }
    // an EOI that exited, where PV EOI would have been armed: an exit it would save
    if (p != EoiPath::PvEoi && p != EoiPath::Other && v.would_arm) ++r_.stats.predicted_pv_eoi_saved;
}

void Engine::on_eoi(const Event& e, Vcpu& v) {
    const int vec = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
    ++r_.stats.eois;
    v.last_eoi_vector = vec;
    v.last_eoi_record = e.record;
    if (vec < 0) {
        ++r_.stats.eoi_nothing_in_service;
        if (v.s.synced && !v.s.isr.empty())
            report(Rule::EoiWhileServiceKnown, e, v.s.vm, v.s.vcpu, "EOI of " + vec_str(v.s.isr.highest()) + " (ISR " + set_str(v.s.isr) + ")",
                   "EOI with nothing in service");
        v.s.isr.reset();
        v.isr_known = true;
        v.isr_cache = -1;
        return;
    }
    if (vec > 255) return;
    const auto u = static_cast<std::size_t>(vec);
    if (v.s.synced) {
        ++r_.stats.eois_checked;
        const int top = v.s.isr.highest();
        if (top != vec) {
            std::vector<std::pair<std::uint64_t, std::string>> chain;
            if (top >= 0 && v.inject_record[static_cast<std::size_t>(top)])
                chain.push_back({v.inject_record[static_cast<std::size_t>(top)], "injected " + vec_str(top)});
            report(Rule::EoiNotHighestIsr, e, v.s.vm, v.s.vcpu, "EOI of " + vec_str(top) + " (ISR " + set_str(v.s.isr) + ")",
                   "EOI of " + vec_str(vec), chain);
        }
    }
    if (v.injected_at[u]) {
        if (o_.collect_latency) i2e_[u].push_back(e.ts.value() - v.injected_at[u]);
        v.injected_at[u] = 0;
    }
    v.s.isr.clear(vec);
    v.isr_cache = -1;
    if (v.open_interrupt[u]) {
        auto& ir = r_.interrupts[static_cast<std::size_t>(v.open_interrupt[u] - 1)];
        ir.eoi_record = e.record;
        ir.eoi_ts = e.ts.value();
        v.open_interrupt[u] = 0;
        v.eoi_interrupt = static_cast<std::int64_t>(&ir - r_.interrupts.data()) + 1;
    } else {
        v.eoi_interrupt = 0;
    }
    if (v.s.tmr.test(vec)) {  // level: the EOI goes on to the IOAPIC, which may re-assert
        v.level_eoi_just_done = true;
        v.level_vector = vec;
    }
    v.pending_eoi = std::pair{vec, std::uint64_t{0}};
    if (v.mmio_eoi_write) resolve_eoi_path(v, EoiPath::XapicMmio);
}

void Engine::on_pv_eoi(const Event& e, Vcpu& v) {
    const int vec = static_cast<int>(e.get(slot::eoi_vector).value_or(-1));
    ++r_.stats.pv_eois;
    ++r_.stats.exits_saved_pv_eoi;
    if (!v.pv_eoi_msr_seen && !v.s.pv_eoi_enabled) {
        // used before any enabling MSR write in the trace: enabled before the capture
        v.s.pv_eoi_enabled = true;
        v.s.pv_eoi_armed = v.would_arm;
    }
    if (v.pending_eoi && v.pending_eoi->first == vec) resolve_eoi_path(v, EoiPath::PvEoi);
    if (!v.s.synced || vm_apicv_active_[static_cast<std::size_t>(v.s.vm.value())]) return;
    if (v.last_eoi_vector != vec) {
        report(Rule::PvEoiWithoutEoi, e, v.s.vm, v.s.vcpu, "kvm_eoi of " + vec_str(vec) + " right before", "kvm_pv_eoi of " + vec_str(vec));
        return;
    }
    const bool armed = sem_ == PvEoiSemantics::Original2012 ? v.armed_2012 : v.s.pv_eoi_armed;
    if (!armed) {
        std::string why = !v.s.pv_eoi_enabled ? "PV EOI not enabled" : "not armed at the last entry";
        if (sem_ == PvEoiSemantics::Original2012) why = !v.s.pv_eoi_enabled ? why : "disarmed (nested interrupt or IOAPIC vector)";
        std::vector<std::pair<std::uint64_t, std::string>> chain;
        const auto u = static_cast<std::size_t>(vec);
        if (v.inject_record[u]) chain.push_back({v.inject_record[u], "injected " + vec_str(vec)});
        report(Rule::PvEoiNotArmed, e, v.s.vm, v.s.vcpu, "a real EOI (" + why + ")", "EOI of " + vec_str(vec) + " through PV EOI", chain);
    }
    v.s.pv_eoi_armed = false;
    v.armed_2012 = false;
}

void Engine::on_entry(const Event& e, Vcpu& v) {
    close_ipis(v.tid);
    if (e.get(slot::entry_rip) == 0xfff0 && (v.s.isr.count() || v.s.irr.count() || !v.s.synced)) {
        // entering at the reset vector: a (re)booted vCPU, its local APIC freshly reset
        v.s.irr.reset();
        v.s.isr.reset();
        v.s.tmr.reset();
        v.isr_cache = -1;
        v.apic_enabled = false;
        v.lvt0_extint = false;
        v.s.synced = true;
        v.isr_known = true;
    }
    v.mmio_eoi_write = false;
    v.in_hlt = false;
    // current kernels: armed before entry only if enabled, IRR empty, the ISR cache
    // valid (a vector set since the last EOI) and not an IOAPIC-handled vector. IRR
    // counts as empty if only vectors racing in from other CPUs are there.
    const VectorSet settled = v.s.irr.minus(v.racing);
    v.would_arm = settled.empty() && v.isr_cache >= 0 && !ioapic_handles(v, v.isr_cache);
    v.s.pv_eoi_armed = v.s.pv_eoi_enabled && v.would_arm;
    // 2012 series: a pending interrupt blocked by priority means nesting: disarm
    if (!v.s.irr.empty() && v.s.deliverable() < 0) v.armed_2012 = false;
    check_liveness_at_entry(e, v);
}

void Engine::on_exit(const Event& e, Vcpu& v) {
    close_ipis(v.tid);
    v.racing.reset();
    // exit_int_info (intr_info on SVM, IDT-vectoring on VMX): valid bit 31, type 10:8
    // (0 = external interrupt), vector 7:0
    const auto info = e.get(slot::exit_intr_info).value_or(0);
    v.interrupted_vector = ((info >> 31) & 1) && ((info >> 8) & 7) == 0 ? static_cast<int>(info & 0xff) : -1;
    // interrupt-window (SVM VINTR, VMX 7) and HLT exits: the guest could take interrupts
    const auto reason = e.get(slot::exit_reason).value_or(-1);
    const auto isa = e.get(slot::exit_isa).value_or(kIsaVmx);
    if (is_hlt_exit(e) || (isa == kIsaSvm && reason == 0x64) || (isa == kIsaVmx && (reason & 0xffff) == 7))
        ++v.windows_while_deliverable;
    ++r_.stats.exits;
    ++exits_by_code_[(e.get(slot::exit_isa).value_or(kIsaVmx) << 32) | (e.get(slot::exit_reason).value_or(-1) & 0xffffffff)];
    if (is_hlt_exit(e)) {
        v.in_hlt = true;
        v.accepted_since_hlt.reset();
    }
}

void Engine::on_msr(const Event& e, Vcpu& v) {
    if (e.get(slot::msr_write) != 1) return;
    const auto ecx = static_cast<std::uint32_t>(e.get(slot::msr_ecx).value_or(0));
    const auto data = e.get(slot::msr_data).value_or(0);
    if (ecx >= 0x800 && ecx <= 0x8ff) vm_x2apic_[static_cast<std::size_t>(v.s.vm.value())] = true;
    if (ecx == kMsrPvEoiEn || ecx == kMsrHvVpAssist) {
        v.pv_eoi_msr_seen = true;
        v.s.pv_eoi_enabled = (data & 1) != 0;
        v.s.pv_eoi_armed = false;
        v.armed_2012 = false;
    } else if (ecx == kMsrX2apicTpr) {
        v.s.tpr = static_cast<int>(data & 0xff);
    } else if (ecx == kMsrX2apicSpiv) {
        v.apic_enabled = (data & 0x100) != 0;
    } else if (ecx >= kMsrHvSint0 && ecx <= kMsrHvSint0 + 15) {
        // SINTx: vector 7:0, masked 16, auto-EOI 17
        const int vec = static_cast<int>(data & 0xff);
        if (vec >= 16) {
            if ((data >> 17) & 1) v.synic_auto_eoi.set(vec);
            else v.synic_auto_eoi.clear(vec);
        }
    }
}

void Engine::on_apic(const Event& e, Vcpu& v) {
    if (e.get(slot::apic_rw) != 1) return;
    const auto reg = e.get(slot::apic_reg).value_or(0);
    const auto val = e.get(slot::apic_val).value_or(0);
    if (reg == kRegTpr) v.s.tpr = static_cast<int>(val & 0xff);
    else if (reg == kRegSpiv) v.apic_enabled = (val & 0x100) != 0;
    else if (reg == kRegLdr) {
        v.ldr = static_cast<std::uint32_t>((val >> 24) & 0xff);
        v.ldr_known = true;
    } else if (reg == kRegLvt0) {
        v.lvt0_extint = ((val >> 8) & 7) == 7 && !((val >> 16) & 1);
    } else if (reg == kRegDfr) {
        v.dfr_cluster = ((val >> 28) & 0xf) == 0;
    }
}

void Engine::on_ioapic(const Event& e) {
    // slots: pin, dst, vec, dm, dest_mode, tm, masked, coalesced
    if (e.vm == kUnknownVm || static_cast<std::size_t>(e.vm.value()) >= ioapic_.size()) return;
    const auto pin = e.get(0).value_or(-1);
    if (pin < 0 || pin >= 24) return;
    auto& p = ioapic_[static_cast<std::size_t>(e.vm.value())][static_cast<std::size_t>(pin)];
    const IoapicPin now{static_cast<int>(e.get(2).value_or(0)), e.get(5).value_or(0) != 0,
                        static_cast<std::uint32_t>(e.get(1).value_or(0)), e.get(4).value_or(0) != 0};
    if (now.vec == p.vec && now.level == p.level && now.dst == p.dst && now.logical == p.logical) return;
    p = now;
    auto& cand = ioapic_candidates_[static_cast<std::size_t>(e.vm.value())];
    cand.reset();
    for (std::size_t i = 0; i < 24; ++i) {
        const auto& q = ioapic_[static_cast<std::size_t>(e.vm.value())][i];
        if ((q.level || i == 8) && q.vec >= 16) cand.set(q.vec);
    }
}

void Engine::on_pio(const Event& e) {
    // 8259 initialisation: ICW1 (bit 4) on port 0x20/0xa0, then ICW2 = vector base on
    // 0x21/0xa1. ExtINT deliveries carry vectors from those two ranges only.
    if (e.vm == kUnknownVm || static_cast<std::size_t>(e.vm.value()) >= pic_.size() || e.get(slot::pio_rw) != 1) return;
    auto& pic = pic_[static_cast<std::size_t>(e.vm.value())];
    const auto port = e.get(slot::pio_port).value_or(0);
    const auto val = e.get(slot::pio_val).value_or(0);
    const int chip = (port == 0xa0 || port == 0xa1) ? 1 : 0;
    if (port == 0x20 || port == 0xa0) {
        pic.expect_icw2[chip] = (val & 0x10) != 0;
    } else if ((port == 0x21 || port == 0xa1) && pic.expect_icw2[chip]) {
        pic.base[chip] = static_cast<int>(val & 0xf8);
        pic.expect_icw2[chip] = false;
    }
}

bool Engine::extint_vector(VmId vm, int vector) const {
    if (vm == kUnknownVm || static_cast<std::size_t>(vm.value()) >= pic_.size()) return true;
    const auto& pic = pic_[static_cast<std::size_t>(vm.value())];
    if (pic.base[0] < 0 && pic.base[1] < 0) return true;  // not programmed in the trace: any vector
    for (int b : pic.base)
        if (b >= 0 && vector >= b && vector < b + 8) return true;
    return false;
}

void Engine::on_gap(const Event& /*e*/) {
    // Anything could have happened on that CPU: every vCPU may have run there.
    ++r_.stats.gaps;
    unsync_all();
    ipis_.clear();
    for (auto& v : vcpus_) v.pending_eoi.reset();
}

void Engine::on_apicv(const Event& e) {
    if (e.vm == kUnknownVm || static_cast<std::size_t>(e.vm.value()) >= vm_apicv_active_.size()) return;
    const bool active = e.get(2).value_or(1) == 0;  // no inhibit reason left: APICv/AVIC runs
    vm_apicv_active_[static_cast<std::size_t>(e.vm.value())] = active;
    if (active)
        for (auto* v : vcpus_of_vm(e.vm)) v->s.synced = false;
}

void Engine::on_wakeup(const Event& e, Vcpu& v) {
    // The vCPU really blocked after HLT: KVM only blocks with nothing deliverable, so
    // every pending vector now was accepted since that HLT (and is in the trace), and
    // Linux halts only outside interrupt handlers, so nothing is in service.
    if (v.s.synced || !v.in_hlt || e.get(1).value_or(0) != 1) return;
    if (vm_apicv_active_[static_cast<std::size_t>(v.s.vm.value())]) return;
    v.s.isr.reset();
    v.s.irr = v.accepted_since_hlt;
    v.isr_cache = -1;
    v.isr_known = true;
    v.s.synced = true;
}

void Engine::check_liveness_at_entry(const Event& e, Vcpu& v) {
    if (!v.s.synced) {
        v.deliverable_since_vector = -1;
        return;
    }
    const int d = v.s.deliverable();
    if (d < 0) {
        v.deliverable_since_vector = -1;
    } else if (d != v.deliverable_since_vector) {
        v.deliverable_since_vector = d;
        v.deliverable_since_ts = e.ts.value();
        v.entries_while_deliverable = 1;
        v.windows_while_deliverable = 0;
        v.stuck_reported = false;
    } else if (++v.entries_while_deliverable >= 64 && v.windows_while_deliverable >= 8 &&
               e.ts.value() - v.deliverable_since_ts > o_.pending_threshold_ns && !v.stuck_reported) {
        v.stuck_reported = true;
        const auto u = static_cast<std::size_t>(d);
        std::vector<std::pair<std::uint64_t, std::string>> chain;
        if (v.accept_record[u]) chain.push_back({v.accept_record[u], "accepted " + vec_str(d)});
        report(Rule::StuckPending, e, v.s.vm, v.s.vcpu, "injection of " + vec_str(d),
               "deliverable for " + std::to_string((e.ts.value() - v.deliverable_since_ts) / 1000000) + " ms over " +
                   std::to_string(v.entries_while_deliverable) + " entries and " + std::to_string(v.windows_while_deliverable) +
                   " open interrupt windows, never injected",
               chain);
    }
    for (int vec = v.s.isr.highest(); vec >= 0; vec = -1) {  // the top one is what blocks progress
        const auto u = static_cast<std::size_t>(vec);
        if (v.injected_at[u] && e.ts.value() - v.injected_at[u] > o_.no_eoi_threshold_ns && !v.no_eoi_reported_at[u]) {
            v.no_eoi_reported_at[u] = e.ts.value();
            report(Rule::StuckInService, e, v.s.vm, v.s.vcpu, "EOI of " + vec_str(vec) + " within " + std::to_string(o_.no_eoi_threshold_ns / 1000000) + " ms",
                   "in service for " + std::to_string((e.ts.value() - v.injected_at[u]) / 1000000) + " ms",
                   {{v.inject_record[u], "injected " + vec_str(vec)}});
        }
    }
}

namespace {
Latency summarize(std::vector<std::int64_t>& s) {
    Latency l;
    if (s.empty()) return l;
    std::sort(s.begin(), s.end());
    auto at = [&](double q) { return s[std::min(s.size() - 1, static_cast<std::size_t>(q * static_cast<double>(s.size())))]; };
    l.count = s.size();
    l.p50 = at(0.5);
    l.p90 = at(0.9);
    l.p99 = at(0.99);
    l.max = s.back();
    return l;
}
}  // namespace

void Engine::finish() {
    for (auto& v : vcpus_)
        if (v.pending_eoi) resolve_eoi_path(v, v.mmio_eoi_write ? EoiPath::XapicMmio : EoiPath::Other);
    for (auto& [tid, list] : ipis_) close_ipis(Tid(tid));
    for (auto& v : vcpus_) close_icr_group(v);
    for (int vec = 0; vec < 256; ++vec) {
        if (!a2i_[static_cast<std::size_t>(vec)].empty()) r_.stats.accept_to_inject[vec] = summarize(a2i_[static_cast<std::size_t>(vec)]);
        if (!i2e_[static_cast<std::size_t>(vec)].empty()) r_.stats.inject_to_eoi[vec] = summarize(i2e_[static_cast<std::size_t>(vec)]);
    }
    for (const auto& [code, n] : exits_by_code_) {
        auto name = exit_reason_name(static_cast<std::int64_t>(code & 0xffffffff), code >> 32);
        r_.stats.exits_by_reason[name.empty() ? "unknown" : std::string(name)] += n;
    }
    const auto real = r_.stats.eois - r_.stats.eoi_nothing_in_service;
    r_.stats.pv_eoi_hit_rate = real ? static_cast<double>(r_.stats.pv_eois) / static_cast<double>(real) : 0.0;
    for (auto& v : vcpus_) r_.final_state.push_back(v.s);
}

ReplayResult Engine::take() { return std::move(r_); }

}  // namespace irqflow::replay
