// Parses the printed part of a kvm event (what follows "kvm_exit:" in a report) back
// into normalized fields. Each event has the patterns its kernel versions and the
// trace-cmd plugin print; the first that consumes the whole text wins.
#pragma once
#include <string_view>

#include "irqflow/capture/event.hpp"

namespace irqflow {

// True when `info` parsed completely; e's slots are set only then.
bool parse_info(EventKind kind, std::string_view info, Event& e);

}  // namespace irqflow
