// Readers: each turns one source into a Trace of normalized events. Bad input throws
// InputError naming the file and the position.
#pragma once
#include <string>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

struct LoadOptions {
    // A trace.dat's headers are first parsed in a forked child, because libtracecmd can
    // crash on corrupt ones. Forking is only safe while the process has one thread
    // (the child may need a lock another thread held: malloc under ASan, the dynamic
    // loader). A program that loads on a background thread calls check_trace_headers
    // on its main thread first, then loads with headers_checked.
    bool headers_checked = false;
};

// trace.dat v6/v7 through libtracecmd; all buffer instances merged in time order.
Trace read_trace_dat(const std::string& path, const LoadOptions& options = {});
// `trace-cmd report` text (any historic column layout, mail-wrapped lines) or
// `perf script` output of kvm:* tracepoints.
Trace read_trace_text(const std::string& path);
// Sniffs the format and calls one of the above; then attributes vCPUs and VMs.
Trace load_trace(const std::string& path, const LoadOptions& options = {});
// The checks load_trace starts with, header probe included (nothing more for text):
// throws the same InputError load_trace would.
void check_trace_headers(const std::string& path);

// Gives events their vCPU and VM (capture/README.md, "vCPU attribution") and fills
// Trace::vms. load_trace calls it.
void attribute(Trace& trace);

}  // namespace irqflow
