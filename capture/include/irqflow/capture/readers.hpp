// Readers: each turns one source into a Trace of normalized events. Bad input throws
// InputError naming the file and the position.
#pragma once
#include <string>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

// trace.dat v6/v7 through libtracecmd; all buffer instances merged in time order.
Trace read_trace_dat(const std::string& path);
// `trace-cmd report` text (any historic column layout, mail-wrapped lines) or
// `perf script` output of kvm:* tracepoints.
Trace read_trace_text(const std::string& path);
// Sniffs the format and calls one of the above; then attributes vCPUs and VMs.
Trace load_trace(const std::string& path);

// Gives events their vCPU and VM (DESIGN §1) and fills Trace::vms. load_trace calls it.
void attribute(Trace& trace);

}  // namespace irqflow
