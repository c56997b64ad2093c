// What a numeric field of a decoded event means, as the kernel's print format of the
// tracepoint spells it (`trace-cmd report` prints these names): kvm_mmio's type,
// kvm_userspace_exit's KVM_EXIT_* reason, delivery and trigger modes, read/write
// flags, xAPIC register names, exception vectors. Empty when the value has no name.
#pragma once
#include <cstdint>
#include <string_view>

#include "irqflow/capture/event.hpp"

namespace irqflow {

// The name of field `slot` of `e` (some depend on another field: a kvm_userspace_exit
// with a negative errno is a restart or an error, whatever its reason says).
std::string_view field_value_name(const Event& e, int slot);

}  // namespace irqflow
