// The symbolic values of trace fields, each kind in one two-way table: the text reader
// parses the names (`trace-cmd report` prints them through the kernel's print formats),
// the printer and the GUI print them, and the replay's named constants are checked
// against them at compile time (replay/src/model/registers.hpp). Sources: the Intel SDM
// (delivery modes, the xAPIC register map), the kernel's kvm tracepoints (how each field
// is spelt) and its UAPI <asm/kvm.h> (exception vectors, checked in capture/src/field_values.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace irqflow::symbols {

struct Symbol {
    std::int64_t value;
    std::string_view name;
};
using Table = std::span<const Symbol>;

// Delivery modes of the APIC, IOAPIC and ICR (kvm_apic_accept_irq's, kvm_apic_ipi's dm);
// 3 is the reserved remote-read mode KVM uses for PV kicks.
inline constexpr Symbol kDeliveryModes[] = {{0, "Fixed"}, {1, "LowPrio"}, {2, "SMI"},  {3, "Res3"},
                                            {4, "NMI"},   {5, "INIT"},    {6, "SIPI"}, {7, "ExtINT"}};
inline constexpr Symbol kTriggerModes[] = {{0, "edge"}, {1, "level"}};
inline constexpr Symbol kDestinationModes[] = {{0, "physical"}, {1, "logical"}};
// ICR destination shorthands; kvm_apic_ipi spells "no shorthand" as "dst".
inline constexpr Symbol kShorthands[] = {{0, "dst"}, {1, "self"}, {2, "all"}, {3, "all-but-self"}};
inline constexpr Symbol kReadWrite[] = {{0, "read"}, {1, "write"}};
inline constexpr Symbol kPioDirections[] = {{0, "in"}, {1, "out"}};
inline constexpr Symbol kMmioTypes[] = {{0, "unsatisfied-read"}, {1, "read"}, {2, "write"}};
// xAPIC register offsets in the APIC page, by the SDM's names (kvm_apic prints them
// with an "APIC_" prefix).
inline constexpr Symbol kApicRegisters[] = {
    {0x20, "ID"},     {0x30, "LVR"},    {0x80, "TASKPRI"}, {0x90, "ARBPRI"},  {0xa0, "PROCPRI"},  {0xb0, "EOI"},     {0xc0, "RRR"},
    {0xd0, "LDR"},    {0xe0, "DFR"},    {0xf0, "SPIV"},    {0x100, "ISR"},    {0x180, "TMR"},     {0x200, "IRR"},    {0x280, "ESR"},
    {0x300, "ICR"},   {0x310, "ICR2"},  {0x320, "LVTT"},   {0x330, "LVTTHMR"}, {0x340, "LVTPC"},  {0x350, "LVT0"},   {0x360, "LVT1"},
    {0x370, "LVTERR"}, {0x380, "TMICT"}, {0x390, "TMCCT"}, {0x3e0, "TDCR"},   {0x3f0, "SELF_IPI"}};
// x86 exception vectors by mnemonic, as kvm_inj_exception prints them ("#GP"; the SVM
// exit names use them without the '#'). 2 is the NMI, an interrupt, not an exception.
inline constexpr Symbol kExceptions[] = {{0, "#DE"},  {1, "#DB"},  {3, "#BP"},  {4, "#OF"},  {5, "#BR"},  {6, "#UD"},  {7, "#NM"},
                                         {8, "#DF"},  {10, "#TS"}, {11, "#NP"}, {12, "#SS"}, {13, "#GP"}, {14, "#PF"}, {16, "#MF"},
                                         {17, "#AC"}, {18, "#MC"}, {19, "#XM"}, {20, "#VE"}, {21, "#CP"}, {28, "#HV"}, {29, "#VC"},
                                         {30, "#SX"}};

constexpr std::string_view name_of(Table t, std::int64_t value) {
    for (const auto& s : t)
        if (s.value == value) return s.name;
    return {};
}
constexpr std::optional<std::int64_t> value_of(Table t, std::string_view name) {
    for (const auto& s : t)
        if (s.name == name) return s.value;
    return std::nullopt;
}
// For compile-time checks of another layer's constants: value_of or -1.
constexpr std::int64_t value_or_none(Table t, std::string_view name) { return value_of(t, name).value_or(-1); }

}  // namespace irqflow::symbols
