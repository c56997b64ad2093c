#include "irqflow/capture/field_values.hpp"

#include <asm/kvm.h>
#include <linux/kvm.h>

#include <array>
#include <cerrno>
#include <utility>

namespace irqflow {
namespace {

using Names = std::initializer_list<std::pair<std::int64_t, std::string_view>>;

std::string_view lookup(Names names, std::int64_t v) {
    for (const auto& [k, n] : names)
        if (k == v) return n;
    return {};
}

// Delivery modes of the APIC, IOAPIC and ICR (Intel SDM, "Delivery Mode"); 3 is the
// reserved remote-read mode KVM uses for PV kicks.
std::string_view delivery_mode(std::int64_t v) {
    static constexpr std::array<std::string_view, 8> kNames = {"Fixed", "LowPrio", "SMI", "Res3", "NMI", "INIT", "SIPI", "ExtINT"};
    return v >= 0 && v < 8 ? kNames[static_cast<std::size_t>(v)] : std::string_view();
}

std::string_view trigger(std::int64_t v) { return v == 0 ? "edge" : v == 1 ? "level" : std::string_view(); }
std::string_view read_write(std::int64_t v) { return v == 0 ? "read" : v == 1 ? "write" : std::string_view(); }

// xAPIC register offsets (Intel SDM, "Local APIC Register Address Map").
std::string_view apic_register(std::int64_t v) {
    return lookup({{0x20, "ID"},      {0x30, "LVR"},     {0x80, "TASKPRI"}, {0x90, "ARBPRI"},  {0xa0, "PROCPRI"}, {0xb0, "EOI"},
                   {0xc0, "RRR"},     {0xd0, "LDR"},     {0xe0, "DFR"},     {0xf0, "SPIV"},    {0x100, "ISR"},    {0x180, "TMR"},
                   {0x200, "IRR"},    {0x280, "ESR"},    {0x300, "ICR"},    {0x310, "ICR2"},   {0x320, "LVTT"},   {0x330, "LVTTHMR"},
                   {0x340, "LVTPC"},  {0x350, "LVT0"},   {0x360, "LVT1"},   {0x370, "LVTERR"}, {0x380, "TMICT"},  {0x390, "TMCCT"},
                   {0x3e0, "TDCR"},   {0x3f0, "SELF_IPI"}},
                  v);
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

// x86 exception vectors (the UAPI's *_VECTOR; 2 is the NMI, 15 reserved).
std::string_view exception(std::int64_t v) {
    return lookup({{DE_VECTOR, "#DE"}, {DB_VECTOR, "#DB"}, {2, "NMI"},         {BP_VECTOR, "#BP"}, {OF_VECTOR, "#OF"},
                   {BR_VECTOR, "#BR"}, {UD_VECTOR, "#UD"}, {NM_VECTOR, "#NM"}, {DF_VECTOR, "#DF"}, {TS_VECTOR, "#TS"},
                   {NP_VECTOR, "#NP"}, {SS_VECTOR, "#SS"}, {GP_VECTOR, "#GP"}, {PF_VECTOR, "#PF"}, {MF_VECTOR, "#MF"},
                   {AC_VECTOR, "#AC"}, {MC_VECTOR, "#MC"}, {XM_VECTOR, "#XM"}, {VE_VECTOR, "#VE"}},
                  v);
}

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
        if (field == "dm") return delivery_mode(v);
        if (field == "tm") return trigger(v);
        if (field == "dest_mode") return v == 0 ? "physical" : v == 1 ? "logical" : std::string_view();
        if (field == "shorthand") return lookup({{1, "self"}, {2, "all"}, {3, "all-but-self"}}, v);
        return {};
    case EventKind::Apic:
        if (field == "rw") return read_write(v);
        if (field == "reg") return apic_register(v);
        return {};
    case EventKind::Msr: return field == "write" ? read_write(v) : std::string_view();
    case EventKind::Pio: return field == "rw" ? (v == 0 ? "in" : v == 1 ? "out" : std::string_view()) : std::string_view();
    case EventKind::Mmio: return field == "type" ? lookup({{0, "unsatisfied-read"}, {1, "read"}, {2, "write"}}, v) : std::string_view();
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
