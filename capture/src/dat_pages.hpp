// Reads the ring-buffer pages of a trace.dat directly (v6 raw, v7 zstd chunks) and
// walks their events with libtraceevent's kbuffer, merging all CPUs in time order.
//
// Why not libtracecmd's iterator: it allocates and frees a record per event and was
// 4-5x slower than this on our captures (closing note of the capture issue has the
// figures). libtracecmd still parses the headers and formats; files whose timestamps
// it would adjust (OFFSET, TSC2NSEC, TIME_SHIFT options) keep going through it.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <vector>
#include <string>

#include "dat_validate.hpp"

struct tep_handle;

namespace irqflow {

// One event as found in a page; data points at the event's fields (common_type first).
struct RawRecord {
    const void* data;
    int size;
    std::uint64_t ts;
    int cpu;
    std::uint64_t offset;   // file offset of the page (or compressed chunk) holding it
    long long missed;       // events dropped before this one on this CPU (-1: unknown count)
};

// The pages of one compressed CPU region, decompressed; chunk_offsets maps each
// chunk_size bytes back to the file offset of the chunk they came from.
struct Inflated {
    std::vector<unsigned char> bytes;
    std::uint64_t chunk_size = 0;
    std::vector<std::uint64_t> chunk_offsets;
};
// Decompresses layout.cpu_data[index] (zstd chunks). Safe to run on any thread.
Inflated inflate_cpu(const std::string& path, const DatLayout& layout, std::size_t index);

// Calls `sink` for every record of every buffer in (timestamp, buffer, CPU) order;
// stops early when sink returns false. Throws InputError on corrupt pages.
// For compressed files, `inflated` holds one future per layout.cpu_data entry.
void walk_pages(const std::string& path, const DatLayout& layout, tep_handle* tep, std::vector<std::future<Inflated>>* inflated,
                const std::function<bool(const RawRecord&)>& sink);

// Whether walk_pages can read this file (else use libtracecmd's iterator).
bool pages_readable(const DatLayout& layout);

}  // namespace irqflow
