// The normalized event: what every reader (trace.dat, report text, perf script)
// produces and what replay, storage and the GUI consume.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "irqflow/capture/types.hpp"

namespace irqflow {

// Events the capture layer understands field by field. Anything else is Other:
// counted by name and kept raw, never dropped.
enum class EventKind : std::uint8_t {
    Entry, Exit, ApicAcceptIrq, InjVirq, Eoi, PvEoi, ApicIpi, Apic, Msr, Hypercall, Pio,
    IoapicSetIrq, MsiSetIrq, SetIrq, PicSetIrq, ApicvAcceptIrq, ApicvInhibitChanged,
    HvSendIpi, HvSendIpiEx, HvSynicSetIrq, HvSynicSendEoi, VcpuWakeup, UserspaceExit,
    WaitLapicExpire, AckIrq, HvHypercall, Mmio, PageFault, InjException,
    NestedVmenter, NestedVmexit, NestedVmexitInject, NestedIntrVmexit,
    Lost,   // not a record: the ring buffer of one host CPU dropped events here
    Other,
    Count_
};

inline constexpr std::size_t kMaxFields = 8;

// Normalized field of each kind, in slot order. Names follow the kernel's field
// names; where the kernel packs several facts in one word (kvm_apic_ipi's icr_low,
// kvm_ioapic_set_irq's redirection entry) the slots hold the decoded facts, because
// that is all a printed report carries and both readers must agree.
struct KindInfo {
    EventKind kind;
    std::string_view name;       // tracepoint name, e.g. "kvm_exit"
    std::array<std::string_view, kMaxFields> fields;
    std::size_t nfields;
};

const KindInfo& kind_info(EventKind k);
std::optional<EventKind> kind_by_name(std::string_view tracepoint);
std::span<const KindInfo> all_kinds();
// Slot of a field in a kind, or -1.
int field_slot(EventKind k, std::string_view field);

struct Event {
    TimestampNs ts;
    std::uint64_t record = 0;   // index of the raw record in time order (report line order)
    Tid tid{-1};                // host thread (common_pid)
    HostCpu cpu{-1};
    VcpuId vcpu = kUnknownVcpu; // attributed vCPU (capture/README.md, "vCPU attribution")
    VmId vm = kUnknownVm;
    EventKind kind = EventKind::Other;
    std::uint16_t name_id = 0;  // index into Trace::names
    std::uint16_t present = 0;  // bit i set = field slot i exists in this kernel's event
    // Other events: their printed info at Trace::raw[raw_off, +raw_len) when the reader
    // kept it (text always; trace.dat with LoadOptions::other_event_info), else 0, 0.
    std::uint64_t raw_off = 0;
    std::uint32_t raw_len = 0;
    std::array<std::int64_t, kMaxFields> f{};

    bool has(int slot) const { return slot >= 0 && (present >> slot) & 1u; }
    std::optional<std::int64_t> get(int slot) const {
        if (!has(slot)) return std::nullopt;
        return f[static_cast<std::size_t>(slot)];
    }
    void set(int slot, std::int64_t v) {
        f[static_cast<std::size_t>(slot)] = v;
        present = static_cast<std::uint16_t>(present | (1u << slot));
    }
};

// An event as a pass that needs one field of it at most sees it (the attribution pass
// of a streamed trace.dat, capture/README.md "Streaming"): its kind, name, CPU and
// thread, and the one slot the pass asked of its kind when the record has that field.
// A quarter of an Event's size, and the other fields are never read.
struct EventHead {
    EventKind kind = EventKind::Other;
    std::uint16_t name_id = 0;
    HostCpu cpu{-1};
    Tid tid{-1};
    std::optional<std::int64_t> value;
};

// Field slots named once, so consumers never search by string in hot loops.
namespace slot {
// kvm_entry
inline constexpr int entry_vcpu_id = 0, entry_rip = 1;
// kvm_exit
inline constexpr int exit_reason = 0, exit_isa = 1, exit_rip = 2, exit_info1 = 3, exit_info2 = 4,
                     exit_intr_info = 5, exit_error_code = 6, exit_vcpu_id = 7;
// kvm_apic_accept_irq / kvm_apicv_accept_irq
inline constexpr int accept_apicid = 0, accept_dm = 1, accept_tm = 2, accept_vec = 3, accept_coalesced = 4;
// kvm_inj_virq
inline constexpr int inj_vector = 0, inj_soft = 1, inj_reinjected = 2;
// kvm_eoi / kvm_pv_eoi
inline constexpr int eoi_apicid = 0, eoi_vector = 1;
// kvm_apic_ipi
inline constexpr int ipi_dest_id = 0, ipi_vec = 1, ipi_dm = 2, ipi_dest_mode = 3, ipi_level = 4,
                     ipi_tm = 5, ipi_shorthand = 6;
// kvm_apic
inline constexpr int apic_rw = 0, apic_reg = 1, apic_val = 2;
// kvm_msr
inline constexpr int msr_write = 0, msr_ecx = 1, msr_data = 2, msr_exception = 3;
// kvm_hypercall
inline constexpr int hc_nr = 0, hc_a0 = 1, hc_a1 = 2, hc_a2 = 3, hc_a3 = 4;
// kvm_pio
inline constexpr int pio_rw = 0, pio_port = 1, pio_size = 2, pio_count = 3, pio_val = 4;
// kvm_ioapic_set_irq (the redirection entry decoded)
inline constexpr int ioapic_pin = 0, ioapic_dst = 1, ioapic_vec = 2, ioapic_dm = 3, ioapic_dest_mode = 4, ioapic_tm = 5,
                     ioapic_masked = 6, ioapic_coalesced = 7;
// kvm_set_irq
inline constexpr int setirq_gsi = 0, setirq_level = 1, setirq_source = 2;
// kvm_apicv_inhibit_changed
inline constexpr int apicv_reason = 0, apicv_set = 1, apicv_inhibits = 2;
// kvm_hv_send_ipi / kvm_hv_send_ipi_ex
inline constexpr int hv_ipi_vector = 0, hv_ipi_processor_mask = 1;
// kvm_vcpu_wakeup
inline constexpr int wakeup_ns = 0, wakeup_waited = 1, wakeup_valid = 2;
// kvm_mmio
inline constexpr int mmio_type = 0, mmio_len = 1, mmio_gpa = 2, mmio_val = 3;
inline constexpr std::int64_t kMmioWrite = 2;  // kvm_mmio's type of a write
// kvm_ack_irq
inline constexpr int ack_irqchip = 0, ack_pin = 1;
inline constexpr std::int64_t kIrqchipIoapic = 2;  // KVM_IRQCHIP_IOAPIC (0, 1: the two 8259s)
// kvm_inj_exception
inline constexpr int excp_vector = 0, excp_has_error = 1, excp_error_code = 2, excp_reinjected = 3;
// kvm_nested_vmenter (kvm_nested_vmrun before Linux 6.2): L1 runs L2; event_inj is the
// event L1 injects into L2 (VMCB EVENTINJ / VMCS entry interruption info: bit 31 valid)
inline constexpr int nvmenter_rip = 0, nvmenter_vmcb = 1, nvmenter_nested_rip = 2, nvmenter_int_ctl = 3,
                     nvmenter_event_inj = 4;
// kvm_nested_vmexit: the kvm_exit slots (an L2 exit, seen by L0)
// kvm_nested_vmexit_inject: an L2 exit reflected to L1 (exit_int_info: the event whose
// delivery the exit cut short, bit 31 valid)
inline constexpr int nvmexit_inject_code = 0, nvmexit_inject_isa = 1, nvmexit_inject_info1 = 2, nvmexit_inject_info2 = 3,
                     nvmexit_inject_int_info = 4, nvmexit_inject_int_info_err = 5;
// kvm_nested_intr_vmexit: an interrupt for L1 ends L2's run
inline constexpr int nintr_rip = 0;
// lost events
inline constexpr int lost_count = 0;
// Other events of KVM (kvm_hv_stimer_*, kvm_pv_tlb_flush, kvm_ple_window_update, ...):
// the vCPU the event names itself, from its vcpu_id or vcpu field (own_vcpu.hpp), when it
// has one; it wins over the thread that emitted it (capture/README.md, "vCPU attribution")
inline constexpr int other_vcpu_id = 0;
}  // namespace slot

}  // namespace irqflow
