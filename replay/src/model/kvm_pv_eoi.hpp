// KVM's PV EOI protocol for one vCPU (and the Hyper-V EOI assist, which KVM runs the
// same way): whether the guest enabled it, and whether the host armed it, under both
// arming semantics (replay/README.md, "PV EOI arming"). Also what it would have done had
// it been enabled: the counterfactual the `predict` statistics need.
#pragma once
#include <cstdint>

namespace irqflow::replay {

// What a kvm_pv_eoi found: the guest cleared a flag that was (or was not) armed.
struct PvEoiUse {
    bool enabled = false;      // PV EOI enabled when it was used
    bool hyperv_assist = false;  // enabled through the Hyper-V VP assist page (the EOI assist)
    bool armed_current = false;
    bool armed_2012 = false;
};

class KvmPvEoi {
public:
    // MSR_KVM_PV_EOI_EN or the Hyper-V VP assist page (`hyperv_assist`): bit 0
    // enables. Either disarms.
    void write_msr(std::int64_t data, bool hyperv_assist);
    // A vector entered ISR. KVM's highest-ISR cache now holds it; the 2012 series armed
    // here unless the IOAPIC needs to see this EOI.
    void injected(int vector, bool ioapic_handled);
    // The delivery an exit cut short is injected again: KVM is processing events for
    // this entry, so it may arm again for the vector in its cache.
    void reinjected() { event_round_ = true; }
    // Any EOI (and an APIC reset) invalidates KVM's highest-ISR cache.
    void eoi() { isr_cache_ = -1; }
    // Before a VM entry. Current kernels arm only on an entry that processed pending
    // events (KVM_REQ_EVENT: here, one that injects or re-injects), and clear the flag
    // again after the exit that follows; they arm iff enabled, IRR is empty
    // (`irr_settled_empty`: vectors racing in from other CPUs do not count), the cache
    // holds a vector and that vector is not IOAPIC-handled. So a PV EOI never follows an
    // exit taken after its injection. The 2012 series disarmed when a pending vector was
    // blocked by priority (nesting).
    void before_entry(bool irr_settled_empty, bool cached_ioapic_handled, bool pending_blocked);
    // What a kvm_pv_eoi finds (before use()): used before any enabling MSR write in the
    // trace, it was enabled before the capture and armed as the last entry would have.
    PvEoiUse peek_use() const;
    // The guest took the PV path: the flag is cleared, nothing is armed.
    void use();

    bool enabled() const { return enabled_; }
    bool armed() const { return armed_; }
    // Armed at the last entry had PV EOI been enabled (the counterfactual).
    bool would_arm() const { return would_arm_; }
    int isr_cache() const { return isr_cache_; }
    // An injection or re-injection since the last entry: the next entry processes events
    // (before_entry's arguments matter only then).
    bool event_round() const { return event_round_; }

private:
    bool enabled_ = false;
    bool msr_seen_ = false;  // the guest wrote the enabling MSR in the trace
    bool hyperv_assist_ = false;  // that MSR was the Hyper-V VP assist page
    bool armed_ = false;     // current semantics
    bool armed_2012_ = false;
    bool would_arm_ = false;
    int isr_cache_ = -1;     // KVM's highest_isr_cache: the last vector set in ISR, -1 after any EOI
    bool event_round_ = false;  // an injection since the last entry: the next entry processes events
};

}  // namespace irqflow::replay
