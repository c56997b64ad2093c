// The replay engine's internals: per-vCPU bookkeeping and the event handlers.
#pragma once
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "irqflow/replay/replay.hpp"

namespace irqflow::replay {

// Where an EOI came from; decided by the events around kvm_eoi on the vCPU thread.
enum class EoiPath { X2apicMsr, XapicMmio, HypervMsr, PvEoi, Other };
const char* to_string(EoiPath p);

struct Vcpu {
    VcpuState s;
    Tid tid{-1};
    bool isr_known = false;   // no in-service vector can predate what we saw
    bool apic_enabled = true;
    // xAPIC logical addressing (LDR 31:24, DFR model), as the guest programmed them
    std::uint32_t ldr = 0;
    bool ldr_known = false;
    bool dfr_cluster = false;
    int last_extint_vector = -1;  // ExtINT deliveries are re-injected outside ISR too
    bool lvt0_extint = false;     // LVT0 unmasked in ExtINT mode: the 8259 PIC delivers here
    VectorSet synic_auto_eoi;     // Hyper-V SynIC SINTs with auto-EOI: never enter ISR
    bool would_arm = false;       // counterfactual: armed at the last entry had PV EOI been on
    bool pv_eoi_msr_seen = false;
    int interrupted_vector = -1;  // the last exit cut this vector's delivery short (exit_int_info) // the guest wrote the PV EOI / VP assist MSR in the trace
    // counterfactual PV IPI: the ICR writes of one send in progress
    struct IcrGroup {
        std::int64_t last_ts = 0;
        int vector = -1, dm = -1;
        std::set<std::uint32_t> dests;
        int writes = 0;
    } icr_group;
    // kernel's highest_isr_cache: last vector set in ISR, -1 after any EOI (current PV EOI rule)
    int isr_cache = -1;
    bool armed_2012 = false;
    // accept → inject and inject → EOI latencies
    std::array<std::int64_t, 256> accepted_at{};
    std::array<std::int64_t, 256> injected_at{};
    std::array<std::uint64_t, 256> accept_record{};
    std::array<std::uint64_t, 256> inject_record{};
    std::array<std::int64_t, 256> open_interrupt{};  // index+1 into ReplayResult::interrupts, per vector in flight
    std::array<std::int64_t, 256> accept_ts_for_record{};
    std::int64_t eoi_interrupt = 0;  // the record whose EOI path is still to be decided
    // EOI waiting for the next event to tell its path
    std::optional<std::pair<int, std::uint64_t>> pending_eoi;  // vector, stats slot
    bool mmio_eoi_write = false;     // kvm_mmio write to APIC EOI since the last entry
    int last_eoi_vector = -2;        // for kvm_pv_eoi: the kvm_eoi right before it
    std::uint64_t last_eoi_record = 0;
    VectorSet accepted_since_hlt;
    // Accepted by another thread since this vCPU's last exit: KVM may or may not have
    // seen them when it chose what to inject (the tracepoints race across CPUs).
    VectorSet racing;
    bool in_hlt = false;
    // liveness bookkeeping
    int deliverable_since_vector = -1;
    std::int64_t deliverable_since_ts = 0;
    int entries_while_deliverable = 0;
    int windows_while_deliverable = 0;  // interrupt-window and HLT exits: the guest could take it
    bool stuck_reported = false;
    int reinject_vector = -1, reinject_run = 0;
    int level_vector = -1, level_rounds = 0;
    bool level_eoi_just_done = false;
    std::array<std::int64_t, 256> no_eoi_reported_at{};
};

// An IPI waiting for its kvm_apic_accept_irq events (emitted on the sender's thread
// before its next VM entry).
struct PendingIpi {
    std::uint64_t record;
    TimestampNs ts;
    VmId vm;
    VcpuId sender;
    int vector;
    int dm;
    std::set<std::uint32_t> expected;   // APIC ids
    std::set<std::uint32_t> received;
    bool lowest_priority = false;       // exactly one of `expected`
    bool exact = true;                  // false: only a lower bound is known
    const char* what;                   // "PV IPI hypercall", "ICR write", "Hyper-V IPI"
    std::uint64_t replaced_writes = 0;  // for exits saved by PV IPI
};

class Engine {
public:
    Engine(const Trace& t, const ReplayOptions& o, PvEoiSemantics semantics);
    void run();
    ReplayResult take();
    void step(const Event& e) { on_event(e); }
    std::vector<VcpuState> states() const {
        std::vector<VcpuState> out;
        for (const auto& v : vcpus_) out.push_back(v.s);
        return out;
    }

private:
    void on_event(const Event& e);
    void on_accept(const Event& e);
    void on_inject(const Event& e, Vcpu& v);
    void on_eoi(const Event& e, Vcpu& v);
    void on_pv_eoi(const Event& e, Vcpu& v);
    void on_entry(const Event& e, Vcpu& v);
    void on_exit(const Event& e, Vcpu& v);
    void on_msr(const Event& e, Vcpu& v);
    void on_apic(const Event& e, Vcpu& v);
    void on_hypercall(const Event& e, Vcpu& v);
    void on_icr(const Event& e, Vcpu& v);
    void on_hv_ipi(const Event& e, Vcpu& v);
    void on_ioapic(const Event& e);
    void on_gap(const Event& e);
    void on_apicv(const Event& e);
    void on_wakeup(const Event& e, Vcpu& v);

    void resolve_eoi_path(Vcpu& v, EoiPath p);
    void close_icr_group(Vcpu& v);
    void close_ipis(Tid tid);
    void check_liveness_at_entry(const Event& e, Vcpu& v);
    void finish();
    void learn(const Event& e);

    void report(Rule r, const Event& e, VmId vm, VcpuId vcpu, std::string expected, std::string observed,
                std::vector<std::pair<std::uint64_t, std::string>> chain = {});
    Vcpu* vcpu_of(const Event& e);
    Vcpu* vcpu_by_apic(VmId vm, std::uint32_t apic);
    std::vector<Vcpu*> vcpus_of_vm(VmId vm);
    void unsync_all();

    const Trace& t_;
    ReplayOptions o_;
    PvEoiSemantics sem_;
    std::vector<Vcpu> vcpus_;
    std::vector<std::vector<int>> index_;                   // [vm][vcpu] → vcpus_ index, -1 if none
    std::unordered_map<std::int64_t, std::uint64_t> exits_by_code_;  // (isa << 32 | reason) → count; named at the end
    struct IoapicPin {
        int vec = -1;
        bool level = false;
        std::uint32_t dst = 0;
        bool logical = false;
    };
    std::vector<std::array<IoapicPin, 24>> ioapic_;         // per VM: redirection entries seen
    std::vector<VectorSet> ioapic_candidates_;              // per VM: vectors of level/RTC pins (quick reject)
    // per VM: the 8259 vector bases (ICW2) the guest programmed, -1 until seen
    struct Pic {
        int base[2] = {-1, -1};
        bool expect_icw2[2] = {false, false};
    };
    std::vector<Pic> pic_;
    bool extint_vector(VmId vm, int vector) const;
    void on_pio(const Event& e);
    bool ioapic_handles(const Vcpu& v, int vector) const;
    // Whether an xAPIC logical destination (8-bit) addresses this vCPU; unknown LDR → nullopt.
    static std::optional<bool> logical_match(const Vcpu& v, std::uint32_t dst);
    std::vector<bool> vm_x2apic_cluster_;                   // guest uses logical (cluster) ICR writes
    std::vector<bool> vm_x2apic_;                           // guest touched x2APIC MSRs (else xAPIC MMIO)
    std::vector<bool> vm_seen_;                             // per VM: first entry seen
    std::vector<VectorSet> mask_vectors_;                   // per VM: vectors the guest sends to several CPUs at once
    // ICR writes (exits) a send to `dests` costs without PV IPI, by the guest's APIC mode.
    std::uint64_t icr_writes_for(VmId vm, const std::set<std::uint32_t>& dests, bool logical) const;
    std::vector<bool> vm_apicv_active_;
    std::unordered_map<std::int32_t, std::vector<PendingIpi>> ipis_;  // by sender tid
    std::vector<std::uint64_t> eoi_slots_;                  // index into stats by path (resolved later)
    ReplayResult r_;
    std::vector<std::vector<std::int64_t>> a2i_, i2e_;      // latency samples by vector
};

}  // namespace irqflow::replay
