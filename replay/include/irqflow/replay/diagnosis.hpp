// A diagnosis in words: one plain sentence per explanation, the same for `check`, its
// JSON, `explain` and the GUI (replay/README.md, "Diagnosis").
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "irqflow/replay/finding.hpp"

namespace irqflow::replay {

// How a sentence names a record: "record 12", or "record 12 (line 40)" for text input.
using RecordName = std::function<std::string(std::uint64_t record)>;

// "vm0/vcpu0: the kvm_eoi of 0xfb is missing between record 22002 (16.607098 s) and
// record 22149 (16.611048 s): …"
std::string sentence(const Explanation& x, const RecordName& where);

// The kernel's name of the event an explanation is about ("kvm_eoi").
std::string kind_name(const Explanation& x);

}  // namespace irqflow::replay
