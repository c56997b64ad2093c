// Strong types for the quantities every layer passes around, so a vector can never be
// handed where an APIC id is expected. All are cheap value types.
#pragma once
#include <compare>
#include <cstdint>
#include <functional>

namespace irqflow {

template <class Tag, class Rep>
class Strong {
public:
    using rep = Rep;
    constexpr Strong() = default;
    constexpr explicit Strong(Rep v) : v_(v) {}
    constexpr Rep value() const { return v_; }
    constexpr auto operator<=>(const Strong&) const = default;

private:
    Rep v_{};
};

struct TimestampTag {};
struct VcpuTag {};
struct ApicTag {};
struct VectorTag {};
struct VmTag {};
struct TidTag {};
struct HostCpuTag {};

// Nanoseconds of the trace clock (for x86-tsc traces: raw cycles, see Trace::clock).
using TimestampNs = Strong<TimestampTag, std::int64_t>;
// vCPU index as KVM names it (kvm_entry's vcpu_id); -1 when unknown.
using VcpuId = Strong<VcpuTag, std::int32_t>;
using ApicId = Strong<ApicTag, std::uint32_t>;
// Interrupt vector; kvm_eoi reports -1 for an EOI with nothing in service.
using Vector = Strong<VectorTag, std::int16_t>;
// One VM = one userspace process (thread group) on the host; -1 when unknown.
using VmId = Strong<VmTag, std::int32_t>;
using Tid = Strong<TidTag, std::int32_t>;
using HostCpu = Strong<HostCpuTag, std::int32_t>;

inline constexpr VcpuId kUnknownVcpu{-1};
inline constexpr VmId kUnknownVm{-1};

// One 64-bit key for a (VM, vCPU) pair, unknowns included, for hash tables.
constexpr std::uint64_t vm_vcpu_key(VmId vm, VcpuId vcpu) {
    return (std::uint64_t{static_cast<std::uint32_t>(vm.value())} << 32) | static_cast<std::uint32_t>(vcpu.value());
}

}  // namespace irqflow

template <class Tag, class Rep>
struct std::hash<irqflow::Strong<Tag, Rep>> {
    std::size_t operator()(irqflow::Strong<Tag, Rep> s) const noexcept { return std::hash<Rep>{}(s.value()); }
};
