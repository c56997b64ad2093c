#include "irqflow/capture/field_values.hpp"
#include "irqflow/capture/symbols.hpp"

#include <asm/kvm.h>
#include <linux/kvm.h>

#include <cerrno>
#include <string_view>
#include <utility>

namespace irqflow {
namespace {

using Names = std::initializer_list<std::pair<std::int64_t, std::string_view>>;

std::string_view lookup(Names names, std::int64_t v) {
    for (const auto& [k, n] : names)
        if (k == v) return n;
    return {};
}

// KVM_EXIT_* from the kernel's UAPI header, so the numbers cannot drift.
std::string_view userspace_exit(std::int64_t v) {
    return lookup({{KVM_EXIT_UNKNOWN, "UNKNOWN"},
                   {KVM_EXIT_EXCEPTION, "EXCEPTION"},
                   {KVM_EXIT_IO, "IO"},
                   {KVM_EXIT_HYPERCALL, "HYPERCALL"},
                   {KVM_EXIT_DEBUG, "DEBUG"},
                   {KVM_EXIT_HLT, "HLT"},
                   {KVM_EXIT_MMIO, "MMIO"},
                   {KVM_EXIT_IRQ_WINDOW_OPEN, "IRQ_WINDOW_OPEN"},
                   {KVM_EXIT_SHUTDOWN, "SHUTDOWN"},
                   {KVM_EXIT_FAIL_ENTRY, "FAIL_ENTRY"},
                   {KVM_EXIT_INTR, "INTR"},
                   {KVM_EXIT_SET_TPR, "SET_TPR"},
                   {KVM_EXIT_TPR_ACCESS, "TPR_ACCESS"},
                   {KVM_EXIT_NMI, "NMI"},
                   {KVM_EXIT_INTERNAL_ERROR, "INTERNAL_ERROR"},
                   {KVM_EXIT_SYSTEM_EVENT, "SYSTEM_EVENT"},
                   {KVM_EXIT_IOAPIC_EOI, "IOAPIC_EOI"},
                   {KVM_EXIT_HYPERV, "HYPERV"},
                   {KVM_EXIT_X86_RDMSR, "X86_RDMSR"},
                   {KVM_EXIT_X86_WRMSR, "X86_WRMSR"},
                   {KVM_EXIT_DIRTY_RING_FULL, "DIRTY_RING_FULL"},
                   {KVM_EXIT_AP_RESET_HOLD, "AP_RESET_HOLD"},
                   {KVM_EXIT_X86_BUS_LOCK, "X86_BUS_LOCK"},
                   {KVM_EXIT_XEN, "XEN"},
                   {KVM_EXIT_NOTIFY, "NOTIFY"}},
                  v);
}

// Exception vectors: the table's, and the NMI (vector 2), which kvm_inj_exception
// can carry too.
std::string_view exception(std::int64_t v) { return v == 2 ? "NMI" : symbols::name_of(symbols::kExceptions, v); }

// The table's vectors are the UAPI's *_VECTOR, so they cannot drift.
constexpr std::pair<std::string_view, int> kUapiVectors[] = {
    {"#DE", DE_VECTOR}, {"#DB", DB_VECTOR}, {"#BP", BP_VECTOR}, {"#OF", OF_VECTOR}, {"#BR", BR_VECTOR}, {"#UD", UD_VECTOR},
    {"#NM", NM_VECTOR}, {"#DF", DF_VECTOR}, {"#TS", TS_VECTOR}, {"#NP", NP_VECTOR}, {"#SS", SS_VECTOR}, {"#GP", GP_VECTOR},
    {"#PF", PF_VECTOR}, {"#MF", MF_VECTOR}, {"#AC", AC_VECTOR}, {"#MC", MC_VECTOR}, {"#XM", XM_VECTOR}, {"#VE", VE_VECTOR}};
constexpr bool exceptions_match_uapi() {
    for (const auto& [name, vector] : kUapiVectors)
        if (symbols::value_or_none(symbols::kExceptions, name) != vector) return false;
    return true;
}
static_assert(exceptions_match_uapi());

}  // namespace

std::string_view field_value_name(const Event& e, int slot) {
    const EventKind k = e.kind;
    const auto value = e.get(slot);
    if (!value) return {};
    const std::int64_t v = *value;
    const std::string_view field = slot >= 0 && static_cast<std::size_t>(slot) < kind_info(k).nfields
                                       ? kind_info(k).fields[static_cast<std::size_t>(slot)]
                                       : std::string_view();
    switch (k) {
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicIpi:
    case EventKind::IoapicSetIrq:
        if (field == "dm") return symbols::name_of(symbols::kDeliveryModes, v);
        if (field == "tm") return symbols::name_of(symbols::kTriggerModes, v);
        if (field == "dest_mode") return symbols::name_of(symbols::kDestinationModes, v);
        if (field == "shorthand") return v == 0 ? std::string_view() : symbols::name_of(symbols::kShorthands, v);  // none: nothing to say
        return {};
    case EventKind::Apic:
        if (field == "rw") return symbols::name_of(symbols::kReadWrite, v);
        if (field == "reg") return symbols::name_of(symbols::kApicRegisters, v);
        return {};
    case EventKind::Msr: return field == "write" ? symbols::name_of(symbols::kReadWrite, v) : std::string_view();
    case EventKind::Pio: return field == "rw" ? symbols::name_of(symbols::kPioDirections, v) : std::string_view();
    case EventKind::Mmio: return field == "type" ? symbols::name_of(symbols::kMmioTypes, v) : std::string_view();
    case EventKind::UserspaceExit:
        if (field != "reason") return {};
        static const int errno_slot = field_slot(EventKind::UserspaceExit, "errno");
        if (const auto err = e.get(errno_slot); err && *err < 0) return *err == -EINTR ? "restart" : "error";  // interrupted: back into the guest
        return userspace_exit(v);
    case EventKind::InjException: return field == "exception" ? exception(v) : std::string_view();
    default: return {};
    }
}

}  // namespace irqflow
