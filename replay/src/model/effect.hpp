// What one event does to the model: decided by Model::decide before anything changes,
// so rules and observers can read the model as it was (before) and as it is (after).
#pragma once
#include <cstdint>

#include "irqflow/capture/event.hpp"
#include "irqflow/capture/types.hpp"
#include "kvm_pv_eoi.hpp"

namespace irqflow::replay {

// Dense index of a vCPU in the model (over all VMs).
struct VcpuSlotTag {};
using VcpuSlot = Strong<VcpuSlotTag, std::int32_t>;
inline constexpr VcpuSlot kNoVcpu{-1};

enum class Outcome : std::uint8_t {
    Applied,            // nothing to classify (or not modelled: see Effect::vcpu)
    // kvm_apic_accept_irq (the vCPU is the destination)
    AcceptNoVcpu,       // no vCPU of the VM owns the APIC id (or the VM is unknown)
    AcceptInit,         // INIT: the destination's APIC resets; its state is known again
    AcceptNotInIrr,     // NMI, SMI, SIPI, ExtINT: delivered outside IRR/ISR
    AcceptIllegal,      // a fixed-mode vector below 16: rejected
    Accepted,           // into IRR (Effect::coalesced when it was pending already)
    AcceptPosted,       // kvm_apicv_accept_irq: posted to hardware, untraced from here on
    // kvm_inj_virq
    InjectSoft,         // software interrupt (INTn): not the APIC's
    Reinject,           // the delivery an exit cut short, again
    InjectBadVector,    // outside 0..255: ignored
    InjectExtInt,       // the 8259's, acknowledged by the PIC: outside IRR/ISR
    InjectNested,       // into L2 (between a nested entry and the exit to L1): L1's event, not its APIC's
    Injected,           // IRR → ISR
    InjectedAutoEoi,    // IRR → nothing: a SynIC auto-EOI vector
    // kvm_eoi
    Eoi,
    EoiNothing,         // vector -1: ISR was empty
    EoiBadVector,       // above 255: ignored
};

// Accepts speak about their destination and a few kinds about the whole VM; every
// other event is about the vCPU whose thread emitted it.
constexpr bool own_thread_kind(EventKind k) {
    return k != EventKind::Lost && k != EventKind::ApicvInhibitChanged && k != EventKind::IoapicSetIrq &&
           k != EventKind::ApicAcceptIrq && k != EventKind::ApicvAcceptIrq;
}

// (Members grouped by their initial value, the -1s together and the falses together:
// an Effect is built for nearly every event, and handed by reference to the rules that
// are not inlined, so it is written out whole.)
struct Effect {
    // Accepts: the destination. Everything else: the vCPU whose thread emitted the
    // event; kNoVcpu when it came from no modelled vCPU's own thread (then only the
    // statistics count it).
    VcpuSlot vcpu = kNoVcpu;
    int vector = -1;
    // Injections into ISR (Injected, InjectedAutoEoi): what the model made of the choice.
    int deliverable = -1;     // the highest pending vector PPR lets through, or -1
    int expected = -1;        // what KVM should have injected (racing vectors forgiven: Model::classify_injection)
    int in_service = -1;      // the highest vector in service before it, or -1
    // What the trace proved the model wrong about (replay/README.md, "Recovery"): commit
    // makes the model agree again, and the event's first finding says so.
    std::int16_t drop_irr = -1;        // injection: this higher deliverable vector was passed over: not pending after all
    std::int16_t isr_clear_from = -1;  // injection below the class in service, EOI of another vector: ISR from here up was retired unseen
    Outcome outcome = Outcome::Applied;
    bool irr_settled_clear = false;    // a PV EOI the model had not armed: KVM armed it, so IRR held nothing from before the entry
    bool reinject_in_service = false;  // a re-injection of a vector the model had not in service: it was injected unseen
    bool pending = false;     // injection: the vector was in IRR (or maybe was: late_irr)
    bool late_irr = false;    // injection: not in IRR, but an accept's late IRR write may have put it back (late_irr.hpp)
    bool level = false;       // accept: level-triggered
    bool coalesced = false;   // accept: already pending
    bool failed_delivery = false;  // re-injection: the exit before reported the vector's delivery failed (else KVM cancelled the entry)
    bool known = false;       // the vCPU's state was known when the event came
    bool checkable = false;   // known, and no APICv/AVIC delivering behind the trace's back: injections and PV EOIs can be judged
    bool starts_vm = false;   // kvm_entry: the VM's first
    bool boots_vm = false;    // kvm_entry: the VM's first, at the reset vector
    PvEoiUse pv_eoi;          // kvm_pv_eoi: what the guest found
    bool adopts() const { return drop_irr >= 0 || isr_clear_from >= 0 || irr_settled_clear || reinject_in_service; }
};

}  // namespace irqflow::replay
