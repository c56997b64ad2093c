// Names of VMX and SVM exit reasons, as kernels and the trace-cmd kvm plugin print them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "irqflow/capture/event.hpp"

namespace irqflow {

inline constexpr std::int64_t kIsaVmx = 1;  // kvm_exit's isa field
inline constexpr std::int64_t kIsaSvm = 2;

struct ExitReasonMatch {
    std::int64_t code;
    std::int64_t isa;
    std::size_t length;  // characters consumed
};

// Longest exit-reason name at the start of `text` (kernel names such as "npf",
// "EXTERNAL_INTERRUPT", or the plugin's "EXIT_NPF", "EXIT_EXCP_GP").
std::optional<ExitReasonMatch> match_exit_reason(std::string_view text);
// Whether `text` is the start of an exit-reason name cut short ("EPT_VIOL"): a wrapped
// report line may break inside the name.
bool exit_reason_prefix(std::string_view text);
// Display name of a reason: VMX kernel name, or SVM name in the plugin's EXIT_ style.
std::string_view exit_reason_name(std::int64_t code, std::int64_t isa);
// Name of a kvm_exit event's reason (VMX when the kernel did not record the isa).
std::string_view exit_reason_name(const Event& exit);
// The key every exits-per-reason table uses (replay statistics, `stats`, the database,
// the GUI): the reason's name, "0x<code>" for a code without one, "unknown" when the
// event carries no reason at all.
std::string exit_reason_key(const Event& exit);
std::string exit_reason_key(std::optional<std::int64_t> code, std::int64_t isa);

// The exit's vectoring info — the event whose delivery it cut short (bit 31 valid, type
// 10:8, vector 7:0) — when the trace carries it: kvm_exit's intr_info is SVM's
// exit_int_info; on VMX it is the exit's own interruption info and the IDT-vectoring
// info is not traced (nullopt). Also for kvm_nested_vmexit, whose slots are kvm_exit's.
inline std::optional<std::int64_t> vectoring_info(const Event& exit) {
    if (exit.get(slot::exit_isa) != kIsaSvm) return std::nullopt;
    return exit.get(slot::exit_intr_info);
}

// An event word — vectoring info, exit_int_info, a nested entry's event_inj — laid out
// alike by SVM and VMX: valid in bit 31, type in 10:8, vector in 7:0.
namespace event_word {
inline constexpr int kExternalInterrupt = 0, kException = 3;  // the types irqflow looks at
constexpr bool valid(std::int64_t w) { return (w >> 31) & 1; }
constexpr int type(std::int64_t w) { return static_cast<int>((w >> 8) & 7); }
constexpr int vector(std::int64_t w) { return static_cast<int>(w & 0xff); }
}  // namespace event_word

// The mnemonic of an x86 exception vector as kvm_inj_exception prints it after its "#"
// ("GP" for 13), or "" for a vector without one. (SVM's exception-exit names spell 19
// "XF".)
std::string_view exception_mnemonic(int vector);

// What an exit means for interrupt delivery, the same for SVM and VMX codes.
enum class ExitClass : std::uint8_t {
    Other,
    Hlt,                // the guest halted (SVM HLT, VMX HLT)
    InterruptWindow,    // the guest opened an interrupt window KVM asked for (SVM VINTR, VMX interrupt window)
    ApicWrite,          // may carry an APIC register write (ICR, EOI): MSR write, APIC access/write, SVM NPF
    ExternalInterrupt,  // a host interrupt (e.g. the IPI another CPU sends to kick this vCPU): SVM INTR, VMX external interrupt
};
// VMX reports the basic exit reason in bits 15:0 (bit 31 flags a failed entry); SVM
// exit codes are whole numbers. (The codes are the kernel's UAPI ones, checked against
// <asm/svm.h> and <asm/vmx.h> in exit_reasons.cpp; inline because every exit asks.)
namespace exit_code {
inline constexpr std::int64_t kSvmIntr = 0x060, kSvmVintr = 0x064, kSvmHlt = 0x078, kSvmMsr = 0x07c, kSvmNpf = 0x400;
inline constexpr std::int64_t kVmxExternalInterrupt = 1, kVmxInterruptWindow = 7, kVmxHlt = 12, kVmxMsrWrite = 32, kVmxApicAccess = 44,
                              kVmxApicWrite = 56;
}  // namespace exit_code
constexpr ExitClass exit_class(std::int64_t code, std::int64_t isa) {
    using namespace exit_code;
    if (isa == kIsaSvm) {
        switch (code) {
        case kSvmHlt: return ExitClass::Hlt;
        case kSvmVintr: return ExitClass::InterruptWindow;
        case kSvmIntr: return ExitClass::ExternalInterrupt;
        case kSvmMsr:
        case kSvmNpf: return ExitClass::ApicWrite;
        default: return ExitClass::Other;
        }
    }
    switch (code & 0xffff) {
    case kVmxHlt: return ExitClass::Hlt;
    case kVmxInterruptWindow: return ExitClass::InterruptWindow;
    case kVmxExternalInterrupt: return ExitClass::ExternalInterrupt;
    case kVmxMsrWrite:
    case kVmxApicAccess:
    case kVmxApicWrite: return ExitClass::ApicWrite;
    default: return ExitClass::Other;
    }
}
// Of a kvm_exit event (Other when it has no reason field).
inline ExitClass exit_class(const Event& exit) {
    const auto code = exit.get(slot::exit_reason);
    return code ? exit_class(*code, exit.get(slot::exit_isa).value_or(kIsaVmx)) : ExitClass::Other;
}

}  // namespace irqflow
