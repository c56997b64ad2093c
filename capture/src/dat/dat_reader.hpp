// The trace.dat reader's entry point for stream_trace (load.cpp): the same read as
// read_trace_dat, into a given Trace, optionally handing events to a sink instead of
// storing them.
#pragma once
#include <cstddef>
#include <string>

#include "irqflow/capture/readers.hpp"

namespace irqflow {

// wants_fields: see Batch::fields_of.
void read_trace_dat_into(const std::string& path, const LoadOptions& options, Trace& t, const EventSink* sink,
                         bool (*wants_fields)(EventKind) = nullptr);
// The same, the events decoded in place into the caller's batches.
void read_trace_dat_into(const std::string& path, const LoadOptions& options, Trace& t, const EventBatches& batches,
                         bool (*wants_fields)(EventKind) = nullptr);

// The same read for a pass that needs one field at most per event: heads only, with
// slot `slot_of(kind)` (-1: none) read straight from each record, a batch at a time,
// perhaps in two parts at once (HeadParts).
void read_trace_dat_heads(const std::string& path, const LoadOptions& options, Trace& t, const HeadParts& parts,
                          int (*slot_of)(EventKind));

// Keeps what libtracecmd parsed of the last `files` files' headers — with the record
// decoder built from them, or the error they were refused with — and reuses it for a file
// whose bytes outside its CPU data are the same, skipping the probe and the parse. For
// fuzz_dat (tests/fuzz/README.md), whose inputs mostly differ in their pages: the parse
// costs ~100 times the rest of a small file's read. Off (0) by default — a command reads
// its file once. A reused handle must not be read by two threads at once.
void reuse_dat_headers(std::size_t files);

}  // namespace irqflow
