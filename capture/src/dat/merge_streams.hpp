// The records of a trace.dat's CPU streams in time order (capture/README.md,
// "Streaming"): decoded by one thread, or — for a pass that wants heads only — in two
// parts of the trace's time, each on a thread of its own.
#pragma once
#include <vector>

#include "dat_pages.hpp"
#include "record_decoder.hpp"

namespace irqflow {

// Decodes all streams' records in (timestamp, stream) order — the order trace-cmd report
// prints — straight into `out`.
void decode_merged(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, Batch& out);

// The same order, as heads into the sinks `parts` gives (`out` holds the head slots; it
// gets the threads seen and the count). Streams holding more than a few hundred KB of
// pages are read in two parts split at a time, the later on a second thread.
void decode_heads(std::vector<StreamPagesPtr>& streams, const DatLayout& layout, const RecordDecoder& decoder, const HeadParts& parts,
                  Batch& out);

}  // namespace irqflow
