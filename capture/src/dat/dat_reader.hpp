// The trace.dat reader's entry point for stream_trace (load.cpp): the same read as
// read_trace_dat, into a given Trace, optionally handing events to a sink instead of
// storing them.
#pragma once
#include <string>

#include "irqflow/capture/readers.hpp"

namespace irqflow {

// wants_fields: see Batch::wants_fields.
void read_trace_dat_into(const std::string& path, const LoadOptions& options, Trace& t, const EventSink* sink,
                         bool (*wants_fields)(EventKind) = nullptr);

}  // namespace irqflow
