// One vCPU's local APIC as a pure state machine: IRR/ISR/TMR, TPR and PPR, SPIV, LDR/DFR
// and LVT0, changed only by the operations below (each the architectural effect of what
// the trace shows). Unit-tested per operation (tests/test_replay_model.cpp).
#pragma once
#include <cstdint>
#include <optional>

#include "irqflow/replay/vector_set.hpp"

namespace irqflow::replay {

class Lapic {
public:
    // An interrupt arrives: IRR gets the vector and TMR records its trigger mode.
    // Returns true when it was already pending: edges coalesce, one delivery for both.
    bool accept(int vector, bool level);
    // The vector is delivered: it leaves IRR and enters ISR. A Hyper-V SynIC auto-EOI
    // vector only leaves IRR (no EOI will come).
    void inject(int vector, bool auto_eoi);
    // EOI of one vector in service (KVM names the vector it cleared).
    void eoi(int vector) { retire(vector); }
    // The kernel found nothing in service: ISR is empty.
    void eoi_nothing() { clear_isr(); }
    // INIT or reset: every register to its reset value; the APIC is software-disabled.
    // LDR/DFR become unknown again (x2APIC guests never write them).
    void reset();
    // A register write, by xAPIC offset (kvm_apic) or x2APIC MSR (kvm_msr).
    void write_register(std::int64_t offset, std::int64_t value);
    void write_msr(std::uint32_t msr, std::int64_t value);

    const VectorSet& irr() const { return irr_; }
    const VectorSet& isr() const { return isr_; }
    const VectorSet& tmr() const { return tmr_; }
    int tpr() const { return tpr_; }
    // ISR's highest vector (-1: none) and how many are in service, kept as ISR changes:
    // every entry and injection asks for PPR, every injection for the nesting depth.
    int isr_top() const { return isr_top_; }
    int isr_count() const { return isr_count_; }
    // How many vectors are pending, kept as IRR changes: every entry asks whether any is
    // (PV EOI arming, LIVE-PENDING-NOT-INJECTED), mostly of an empty IRR.
    int irr_count() const { return irr_count_; }
    int ppr() const { return apic_ppr(tpr_, isr_top_); }
    // Highest pending vector whose class beats PPR, or -1.
    int deliverable() const { return apic_deliverable(irr_, ppr()); }
    bool software_enabled() const { return enabled_; }
    // LVT0 unmasked in ExtINT mode: the 8259 PIC delivers through this APIC.
    bool lvt0_extint() const { return lvt0_extint_; }
    // Whether an xAPIC logical destination (8 bits) addresses this APIC: flat model = any
    // common bit, cluster model = same cluster and a common member bit; nullopt while the
    // guest has not written LDR.
    std::optional<bool> logical_match(std::uint32_t dest) const;

    // Before the trace shows its reset the APIC is taken as software-enabled (a capture
    // that starts mid-flight); a reset (boot, INIT) disables it until SPIV is written.
    void set_software_enabled(bool on) { enabled_ = on; }
    // The vCPU provably blocked in HLT: nothing in service, and pending exactly what
    // arrived since the HLT (replay/README.md, "Unknown until proven").
    void idle_since(const VectorSet& pending) {
        clear_isr();
        irr_ = pending;
        irr_count_ = irr_.count();
    }
    // Recovery after a divergence (replay/README.md, "Recovery"): the trace proved these
    // vectors were not pending / the ones from `vector` up no longer in service.
    void drop_pending(const VectorSet& s) {
        irr_ = irr_.minus(s);
        irr_count_ = irr_.count();
    }
    void retire_from(int vector) {  // (reads ISR itself, not the kept top: a rare path, and it cannot loop forever)
        for (int v = isr_.highest(); v >= vector && v >= 0; v = isr_.highest()) retire(v);
    }

private:
    void serve(int vector) {
        if (isr_.test(vector)) return;
        isr_.set(vector);
        ++isr_count_;
        if (vector > isr_top_) isr_top_ = vector;
    }
    void retire(int vector) {
        if (!isr_.test(vector)) return;
        isr_.clear(vector);
        --isr_count_;
        if (vector == isr_top_) isr_top_ = isr_.highest();
    }
    void clear_isr() {
        isr_.reset();
        isr_top_ = -1;
        isr_count_ = 0;
    }
    VectorSet irr_, isr_, tmr_;
    int isr_top_ = -1, isr_count_ = 0;  // of isr_
    int irr_count_ = 0;                 // of irr_
    int tpr_ = 0;
    bool enabled_ = true;
    bool lvt0_extint_ = false;
    std::uint32_t ldr_ = 0;
    bool ldr_known_ = false;
    bool dfr_cluster_ = false;
};

}  // namespace irqflow::replay
