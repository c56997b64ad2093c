// Named registers, MSRs and bit fields of the local APIC and of the paravirtual MSRs
// the guest uses around it: the numbers the model decodes, in one place. Sources: the
// Intel SDM vol. 3 chapter on the APIC (xAPIC register map, x2APIC MSR map, LVT, SPIV,
// LDR/DFR and ICR layouts), AMD APM vol. 2 (exit_int_info), the Hyper-V TLFS (synthetic
// MSRs) and the kernel's UAPI <asm/kvm_para.h> (the KVM PV EOI MSR).
#pragma once
#include <asm/kvm_para.h>
#include <linux/kvm_para.h>

#include <cstdint>

#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/symbols.hpp"

namespace irqflow::replay::apic {

// xAPIC register offsets in the 4 KiB MMIO page: kvm_apic's `reg`, kvm_mmio's gpa & 0xff0.
inline constexpr std::int64_t kRegTpr = 0x80, kRegEoi = 0xb0, kRegLdr = 0xd0, kRegDfr = 0xe0, kRegSpiv = 0xf0,
                              kRegIcr = 0x300,
                              kRegLvt0 = 0x350;
inline constexpr std::int64_t kMmioBase = 0xfee00000;  // the architectural default base
inline constexpr std::int64_t kMmioPageMask = ~0xfffLL, kMmioRegMask = 0xff0;

// x2APIC: register offset / 16 + 0x800 as an MSR.
inline constexpr std::uint32_t kMsrX2apicFirst = 0x800, kMsrX2apicLast = 0x8ff;
inline constexpr std::uint32_t kMsrTpr = 0x808, kMsrEoi = 0x80b, kMsrSpiv = 0x80f, kMsrIcr = 0x830;

// Delivery modes (ICR, LVT, IOAPIC entries; kvm_apic_accept_irq's dm).
inline constexpr int kDmFixed = 0, kDmLowestPriority = 1, kDmNmi = 4, kDmInit = 5, kDmExtInt = 7;
// Remote read (reserved on modern APICs): KVM delivers a PV kick (KVM_HC_KICK_CPU) to
// the halted vCPU in this mode; reports print it `vec 0 (Res3|edge)`.
inline constexpr int kDmRemoteRead = 3;
// ICR destination shorthands.
inline constexpr int kShorthandNone = 0, kShorthandSelf = 1, kShorthandAll = 2, kShorthandAllButSelf = 3;
// Vectors 0-15 are reserved: illegal in fixed and lowest-priority delivery.
inline constexpr int kFirstLegalVector = 16;
inline constexpr int kVectors = 256;
// The xAPIC physical broadcast id and the x2APIC one.
inline constexpr std::uint32_t kBroadcastXapic = 0xff, kBroadcastX2apic = 0xffffffffu;

// The same numbers as capture's tables of what the trace prints, or this does not build.
namespace checked {
using namespace irqflow::symbols;
static_assert(value_or_none(kApicRegisters, "TASKPRI") == kRegTpr && value_or_none(kApicRegisters, "EOI") == kRegEoi &&
              value_or_none(kApicRegisters, "LDR") == kRegLdr && value_or_none(kApicRegisters, "DFR") == kRegDfr &&
              value_or_none(kApicRegisters, "SPIV") == kRegSpiv && value_or_none(kApicRegisters, "ICR") == kRegIcr &&
              value_or_none(kApicRegisters, "LVT0") == kRegLvt0);
static_assert(value_or_none(kDeliveryModes, "Fixed") == kDmFixed && value_or_none(kDeliveryModes, "LowPrio") == kDmLowestPriority &&
              value_or_none(kDeliveryModes, "NMI") == kDmNmi && value_or_none(kDeliveryModes, "INIT") == kDmInit &&
              value_or_none(kDeliveryModes, "ExtINT") == kDmExtInt && value_or_none(kDeliveryModes, "Res3") == kDmRemoteRead);
static_assert(value_or_none(kShorthands, "dst") == kShorthandNone && value_or_none(kShorthands, "self") == kShorthandSelf &&
              value_or_none(kShorthands, "all") == kShorthandAll && value_or_none(kShorthands, "all-but-self") == kShorthandAllButSelf);
// x2APIC MSRs are the xAPIC offsets / 16 from 0x800.
static_assert(kMsrTpr == kMsrX2apicFirst + kRegTpr / 16 && kMsrEoi == kMsrX2apicFirst + kRegEoi / 16 &&
              kMsrSpiv == kMsrX2apicFirst + kRegSpiv / 16 && kMsrIcr == kMsrX2apicFirst + kRegIcr / 16);
}  // namespace checked

constexpr bool spiv_software_enabled(std::int64_t spiv) { return (spiv >> 8) & 1; }
constexpr int lvt_delivery_mode(std::int64_t lvt) { return static_cast<int>((lvt >> 8) & 7); }
constexpr bool lvt_masked(std::int64_t lvt) { return (lvt >> 16) & 1; }
constexpr std::uint32_t ldr_logical_id(std::int64_t ldr) { return static_cast<std::uint32_t>((ldr >> 24) & 0xff); }
constexpr bool dfr_cluster_model(std::int64_t dfr) { return ((dfr >> 28) & 0xf) == 0; }
// x2APIC logical destination: cluster in 31:16, one bit per member (APIC id 3:0) in 15:0.
constexpr std::uint32_t x2apic_cluster_of(std::uint32_t apic_id) { return apic_id >> 4; }
constexpr bool x2apic_logical_match(std::uint32_t dest, std::uint32_t apic_id) {
    return x2apic_cluster_of(apic_id) == (dest >> 16) && (((dest & 0xffff) >> (apic_id & 0xf)) & 1);
}

// The vector of type `type` whose delivery an exit cut short, from its vectoring info
// (an event word: capture's vectoring_info() says when the trace carries it), or -1.
constexpr int interrupted_event(std::int64_t info, int type) {
    return event_word::valid(info) && event_word::type(info) == type ? event_word::vector(info) : -1;
}
constexpr int interrupted_delivery(std::int64_t info) { return interrupted_event(info, event_word::kExternalInterrupt); }

}  // namespace irqflow::replay::apic

namespace irqflow::replay::msr {

inline constexpr std::uint32_t kKvmPvEoiEn = MSR_KVM_PV_EOI_EN;
inline constexpr std::int64_t kKvmPvEoiEnabled = KVM_PV_EOI_ENABLED;
// Hyper-V synthetic MSRs (TLFS): EOI, the VP assist page (whose bit 0 enables the EOI
// assist that KVM runs as PV EOI), SINT0..SINT15 (vector 7:0, masked 16, auto-EOI 17).
inline constexpr std::uint32_t kHvEoi = 0x40000070, kHvVpAssistPage = 0x40000073, kHvSint0 = 0x40000090,
                               kHvSint15 = 0x4000009f;
constexpr int sint_vector(std::int64_t v) { return static_cast<int>(v & 0xff); }
constexpr bool sint_auto_eoi(std::int64_t v) { return (v >> 17) & 1; }

}  // namespace irqflow::replay::msr

namespace irqflow::replay::hypercall {
inline constexpr std::int64_t kSendIpi = KVM_HC_SEND_IPI;  // a0/a1: 128-bit APIC id bitmap from a2; a3: ICR low
}
