// Codes come from the kernel's UAPI headers (linux-libc-dev), so the numbers are the
// kernel's own; only the spellings used by trace-cmd's plugin are listed here.
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/symbols.hpp"

// SVM_EXIT_REASONS names exception exits through the kernel's *_VECTOR constants,
// which the UAPI headers do not define; these are the architectural vector numbers.
#define DE_VECTOR 0
#define DB_VECTOR 1
#define BP_VECTOR 3
#define OF_VECTOR 4
#define BR_VECTOR 5
#define UD_VECTOR 6
#define NM_VECTOR 7
#define DF_VECTOR 8
#define TS_VECTOR 10
#define NP_VECTOR 11
#define SS_VECTOR 12
#define GP_VECTOR 13
#define PF_VECTOR 14
#define MF_VECTOR 16
#define AC_VECTOR 17
#define MC_VECTOR 18
#define XM_VECTOR 19
#include <asm/svm.h>
#include <asm/vmx.h>

#include <cstdio>
#include <string>
#include <vector>

namespace irqflow {
namespace {

struct Name {
    std::int64_t code;
    const char* name;
};

constexpr Name kVmx[] = {VMX_EXIT_REASONS};
constexpr Name kSvmKernel[] = {SVM_EXIT_REASONS};

// trace-cmd's kvm plugin spells SVM reasons as the UAPI macro name minus "SVM_".
#define IRQFLOW_SVM(n) {SVM_EXIT_##n, "EXIT_" #n}
constexpr Name kSvmPlugin[] = {
    IRQFLOW_SVM(READ_CR0), IRQFLOW_SVM(READ_CR3), IRQFLOW_SVM(READ_CR4), IRQFLOW_SVM(READ_CR8),
    IRQFLOW_SVM(WRITE_CR0), IRQFLOW_SVM(WRITE_CR3), IRQFLOW_SVM(WRITE_CR4), IRQFLOW_SVM(WRITE_CR8),
    IRQFLOW_SVM(READ_DR0), IRQFLOW_SVM(READ_DR1), IRQFLOW_SVM(READ_DR2), IRQFLOW_SVM(READ_DR3),
    IRQFLOW_SVM(READ_DR4), IRQFLOW_SVM(READ_DR5), IRQFLOW_SVM(READ_DR6), IRQFLOW_SVM(READ_DR7),
    IRQFLOW_SVM(WRITE_DR0), IRQFLOW_SVM(WRITE_DR1), IRQFLOW_SVM(WRITE_DR2), IRQFLOW_SVM(WRITE_DR3),
    IRQFLOW_SVM(WRITE_DR4), IRQFLOW_SVM(WRITE_DR5), IRQFLOW_SVM(WRITE_DR6), IRQFLOW_SVM(WRITE_DR7),
    IRQFLOW_SVM(EXCP_BASE), IRQFLOW_SVM(LAST_EXCP),
    IRQFLOW_SVM(INTR), IRQFLOW_SVM(NMI), IRQFLOW_SVM(SMI), IRQFLOW_SVM(INIT), IRQFLOW_SVM(VINTR),
    IRQFLOW_SVM(CR0_SEL_WRITE), IRQFLOW_SVM(IDTR_READ), IRQFLOW_SVM(GDTR_READ), IRQFLOW_SVM(LDTR_READ),
    IRQFLOW_SVM(TR_READ), IRQFLOW_SVM(IDTR_WRITE), IRQFLOW_SVM(GDTR_WRITE), IRQFLOW_SVM(LDTR_WRITE),
    IRQFLOW_SVM(TR_WRITE), IRQFLOW_SVM(RDTSC), IRQFLOW_SVM(RDPMC), IRQFLOW_SVM(PUSHF), IRQFLOW_SVM(POPF),
    IRQFLOW_SVM(CPUID), IRQFLOW_SVM(RSM), IRQFLOW_SVM(IRET), IRQFLOW_SVM(SWINT), IRQFLOW_SVM(INVD),
    IRQFLOW_SVM(PAUSE), IRQFLOW_SVM(HLT), IRQFLOW_SVM(INVLPG), IRQFLOW_SVM(INVLPGA), IRQFLOW_SVM(IOIO),
    IRQFLOW_SVM(MSR), IRQFLOW_SVM(TASK_SWITCH), IRQFLOW_SVM(FERR_FREEZE), IRQFLOW_SVM(SHUTDOWN),
    IRQFLOW_SVM(VMRUN), IRQFLOW_SVM(VMMCALL), IRQFLOW_SVM(VMLOAD), IRQFLOW_SVM(VMSAVE), IRQFLOW_SVM(STGI),
    IRQFLOW_SVM(CLGI), IRQFLOW_SVM(SKINIT), IRQFLOW_SVM(RDTSCP), IRQFLOW_SVM(ICEBP), IRQFLOW_SVM(WBINVD),
    IRQFLOW_SVM(MONITOR), IRQFLOW_SVM(MWAIT), IRQFLOW_SVM(MWAIT_COND), IRQFLOW_SVM(XSETBV),
    IRQFLOW_SVM(RDPRU), IRQFLOW_SVM(EFER_WRITE_TRAP), IRQFLOW_SVM(CR0_WRITE_TRAP),
    IRQFLOW_SVM(CR4_WRITE_TRAP), IRQFLOW_SVM(CR8_WRITE_TRAP), IRQFLOW_SVM(INVPCID), IRQFLOW_SVM(NPF),
    IRQFLOW_SVM(AVIC_INCOMPLETE_IPI), IRQFLOW_SVM(AVIC_UNACCELERATED_ACCESS), IRQFLOW_SVM(VMGEXIT),
};
#undef IRQFLOW_SVM

// SVM's exception exits (vectors 0-19): the plugin prints EXIT_EXCP_<name>, the kernel
// "<name> excp"; their table spells 19 "XF".
constexpr int kLastSvmExceptionExit = 19;
std::string_view svm_exception_exit_name(int vector) { return vector == 19 ? "XF" : exception_mnemonic(vector); }

struct Entry {
    std::string name;
    std::int64_t code;
    std::int64_t isa;
};

const std::vector<Entry>& table() {
    static const std::vector<Entry> t = [] {
        std::vector<Entry> v;
        for (auto n : kVmx) v.push_back({n.name, n.code, kIsaVmx});
        v.push_back({"PENDING_INTERRUPT", EXIT_REASON_INTERRUPT_WINDOW, kIsaVmx});  // name before Linux 5.x
        for (auto n : kSvmKernel) v.push_back({n.name, n.code, kIsaSvm});
        for (auto n : kSvmPlugin) v.push_back({n.name, n.code, kIsaSvm});
        for (int x = 0; x <= kLastSvmExceptionExit; ++x) {
            const std::string name(svm_exception_exit_name(x));
            if (name.empty()) continue;
            v.push_back({"EXIT_EXCP_" + name, SVM_EXIT_EXCP_BASE + x, kIsaSvm});
            v.push_back({name + " excp", SVM_EXIT_EXCP_BASE + x, kIsaSvm});
        }
        return v;
    }();
    return t;
}

bool ident_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

std::string_view exception_mnemonic(int vector) {
    const auto name = symbols::name_of(symbols::kExceptions, vector);
    return name.empty() ? name : name.substr(1);  // without the '#'
}

std::optional<ExitReasonMatch> match_exit_reason(std::string_view text) {
    std::optional<ExitReasonMatch> best;
    for (const auto& e : table()) {
        if (text.substr(0, e.name.size()) != e.name) continue;
        if (text.size() > e.name.size() && ident_char(text[e.name.size()])) continue;  // whole word
        if (!best || e.name.size() > best->length) best = ExitReasonMatch{e.code, e.isa, e.name.size()};
    }
    return best;
}

bool exit_reason_prefix(std::string_view text) {
    if (text.empty()) return true;
    for (const auto& e : table())
        if (e.name.size() > text.size() && e.name.compare(0, text.size(), text) == 0) return true;
    return false;
}

std::string_view exit_reason_name(std::int64_t code, std::int64_t isa) {
    if (isa == kIsaVmx) {
        for (auto n : kVmx)
            if (n.code == (code & 0xffff)) return n.name;
    } else {
        for (auto n : kSvmPlugin)
            if (n.code == code) return n.name;
        for (auto n : kSvmKernel)
            if (n.code == code) return n.name;
    }
    return {};
}

std::string_view exit_reason_name(const Event& e) {
    auto code = e.get(slot::exit_reason);
    if (!code) return {};
    return exit_reason_name(*code, e.get(slot::exit_isa).value_or(kIsaVmx));
}

std::string exit_reason_key(const Event& e) { return exit_reason_key(e.get(slot::exit_reason), e.get(slot::exit_isa).value_or(kIsaVmx)); }

std::string exit_reason_key(std::optional<std::int64_t> code, std::int64_t isa) {
    if (!code) return "unknown";
    const auto name = exit_reason_name(*code, isa);
    if (!name.empty()) return std::string(name);
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(*code));
    return b;
}

static_assert(exit_code::kSvmIntr == SVM_EXIT_INTR && exit_code::kSvmVintr == SVM_EXIT_VINTR && exit_code::kSvmHlt == SVM_EXIT_HLT && exit_code::kSvmMsr == SVM_EXIT_MSR &&
              exit_code::kSvmNpf == SVM_EXIT_NPF);
static_assert(exit_code::kVmxExternalInterrupt == EXIT_REASON_EXTERNAL_INTERRUPT &&
              exit_code::kVmxInterruptWindow == EXIT_REASON_INTERRUPT_WINDOW && exit_code::kVmxHlt == EXIT_REASON_HLT &&
              exit_code::kVmxMsrWrite == EXIT_REASON_MSR_WRITE && exit_code::kVmxApicAccess == EXIT_REASON_APIC_ACCESS &&
              exit_code::kVmxApicWrite == EXIT_REASON_APIC_WRITE);

}  // namespace irqflow
