#include <algorithm>

#include "irqflow/capture/event.hpp"

namespace irqflow {
namespace {

using K = EventKind;
// Order must follow EventKind; checked by a static test at start-up (kind_info).
constexpr KindInfo kKinds[] = {
    {K::Entry, "kvm_entry", {"vcpu_id", "rip"}, 2},
    {K::Exit, "kvm_exit", {"exit_reason", "isa", "guest_rip", "info1", "info2", "intr_info", "error_code", "vcpu_id"}, 8},
    {K::ApicAcceptIrq, "kvm_apic_accept_irq", {"apicid", "dm", "tm", "vec", "coalesced"}, 5},
    {K::InjVirq, "kvm_inj_virq", {"vector", "soft", "reinjected"}, 3},
    {K::Eoi, "kvm_eoi", {"apicid", "vector"}, 2},
    {K::PvEoi, "kvm_pv_eoi", {"apicid", "vector"}, 2},
    {K::ApicIpi, "kvm_apic_ipi", {"dest_id", "vec", "dm", "dest_mode", "level", "tm", "shorthand"}, 7},
    {K::Apic, "kvm_apic", {"rw", "reg", "val"}, 3},
    {K::Msr, "kvm_msr", {"write", "ecx", "data", "exception"}, 4},
    {K::Hypercall, "kvm_hypercall", {"nr", "a0", "a1", "a2", "a3"}, 5},
    {K::Pio, "kvm_pio", {"rw", "port", "size", "count", "val"}, 5},
    {K::IoapicSetIrq, "kvm_ioapic_set_irq", {"pin", "dst", "vec", "dm", "dest_mode", "tm", "masked", "coalesced"}, 8},
    {K::MsiSetIrq, "kvm_msi_set_irq", {"dst", "vec", "dm", "dest_mode", "tm", "rh"}, 6},
    {K::SetIrq, "kvm_set_irq", {"gsi", "level", "irq_source_id"}, 3},
    {K::PicSetIrq, "kvm_pic_set_irq", {"chip", "pin", "tm", "masked", "coalesced"}, 5},
    {K::ApicvAcceptIrq, "kvm_apicv_accept_irq", {"apicid", "dm", "tm", "vec"}, 4},
    {K::ApicvInhibitChanged, "kvm_apicv_inhibit_changed", {"reason", "set", "inhibits"}, 3},
    {K::HvSendIpi, "kvm_hv_send_ipi", {"vector", "processor_mask"}, 2},
    {K::HvSendIpiEx, "kvm_hv_send_ipi_ex", {"vector", "format", "valid_bank_mask"}, 3},
    {K::HvSynicSetIrq, "kvm_hv_synic_set_irq", {"vcpu_id", "sint", "vector", "ret"}, 4},
    {K::HvSynicSendEoi, "kvm_hv_synic_send_eoi", {"vcpu_id", "sint", "vector"}, 3},
    {K::VcpuWakeup, "kvm_vcpu_wakeup", {"ns", "waited", "valid"}, 3},
    {K::UserspaceExit, "kvm_userspace_exit", {"reason", "errno"}, 2},
    {K::WaitLapicExpire, "kvm_wait_lapic_expire", {"vcpu_id", "delta"}, 2},
    {K::AckIrq, "kvm_ack_irq", {"irqchip", "pin"}, 2},
    {K::HvHypercall, "kvm_hv_hypercall", {"code", "fast", "var_cnt", "rep_cnt", "rep_idx", "ingpa", "outgpa"}, 7},
    {K::Mmio, "kvm_mmio", {"type", "len", "gpa", "val"}, 4},
    {K::PageFault, "kvm_page_fault", {"vcpu_id", "guest_rip", "fault_address", "error_code"}, 4},
    {K::InjException, "kvm_inj_exception", {"exception", "has_error", "error_code", "reinjected"}, 4},
    {K::NestedVmenter, "kvm_nested_vmenter", {"rip", "vmcb", "nested_rip", "int_ctl", "event_inj"}, 5},
    {K::NestedVmexit, "kvm_nested_vmexit", {"exit_reason", "isa", "guest_rip", "info1", "info2", "intr_info", "error_code", "vcpu_id"}, 8},
    {K::NestedVmexitInject, "kvm_nested_vmexit_inject", {"exit_code", "isa", "exit_info1", "exit_info2", "exit_int_info", "exit_int_info_err"}, 6},
    {K::NestedIntrVmexit, "kvm_nested_intr_vmexit", {"rip"}, 1},
    {K::Lost, "lost_events", {"count"}, 1},
    {K::Other, "", {}, 0},
};
static_assert(std::size(kKinds) == static_cast<std::size_t>(EventKind::Count_));

constexpr bool ordered() {
    for (std::size_t i = 0; i < std::size(kKinds); ++i)
        if (static_cast<std::size_t>(kKinds[i].kind) != i) return false;
    return true;
}
static_assert(ordered(), "kKinds must follow EventKind order");

}  // namespace

const KindInfo& kind_info(EventKind k) { return kKinds[static_cast<std::size_t>(k)]; }

std::span<const KindInfo> all_kinds() { return kKinds; }

std::optional<EventKind> kind_by_name(std::string_view tracepoint) {
    if (tracepoint == "kvm_nested_vmrun") return K::NestedVmenter;  // its name before Linux 6.2, same fields
    for (const auto& k : kKinds)
        if (k.kind != EventKind::Other && k.kind != EventKind::Lost && k.name == tracepoint) return k.kind;
    return std::nullopt;
}

int field_slot(EventKind k, std::string_view field) {
    const auto& info = kind_info(k);
    for (std::size_t i = 0; i < info.nfields; ++i)
        if (info.fields[i] == field) return static_cast<int>(i);
    return -1;
}

}  // namespace irqflow
