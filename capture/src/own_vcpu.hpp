// The vCPU an Other event of KVM names itself (slot::other_vcpu_id). KVM's tracepoints
// outside the kinds irqflow decodes call that field vcpu_id (kvm_hv_stimer_*,
// kvm_hv_timer_state, kvm_hv_notify_acked_sint, kvm_pvclock_update) or vcpu
// (kvm_pv_tlb_flush, kvm_ple_window_update, kvm_pml_full, kvm_track_tsc), and print it
// first or early as "vcpu_id 7", "vcpu_id=7", "vcpu 7" or "vcpu=7". Such an event may
// come from another vCPU's thread (a timer torn down on the thread that destroys the
// vCPUs), so the field, not the thread, says whose it is. Both readers use this one list.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace irqflow {

inline constexpr std::string_view kOwnVcpuFields[] = {"vcpu_id", "vcpu"};

// Whether an event of this name may carry its own vCPU: KVM's (kvm_*); another
// subsystem's "vcpu" field means something else, if anything.
inline bool names_own_vcpu(std::string_view event_name) { return event_name.substr(0, 3) == "kvm"; }

struct OwnVcpu {
    std::int64_t vcpu;
    std::size_t begin, end;  // the "vcpu_id 7" it was read from, as offsets into the info
};

// The first "vcpu_id N" / "vcpu N" (with ' ', '=' or ": " between) starting a word of a
// printed info, or nullopt.
std::optional<OwnVcpu> own_vcpu_in_info(std::string_view info);

// The same for an info a reader joined from wrapped lines with a space at each offset in
// `breaks` (the lines a mail client may have broken mid-token, "vcp" / "u_id 3" or
// "vcpu_id 1" / "2, timer 0"): a reading without one of those spaces wins when its field
// spans that break — a break inside "vcpu_id 12" was a mid-token one.
std::optional<OwnVcpu> own_vcpu_in_joined_info(std::string_view info, std::span<const std::size_t> breaks);

}  // namespace irqflow
