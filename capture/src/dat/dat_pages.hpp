// Reads the ring-buffer pages of a trace.dat directly (v6 raw, v7 zstd chunks) and
// walks their records (the kernel's ring-buffer page format), one CPU stream at a time.
//
// Why not libtracecmd's iterator: it allocates and frees a record per event, which was
// the reader's largest cost. libtracecmd still parses the headers and formats; files
// whose timestamps it would adjust (OFFSET, TSC2NSEC, TIME_SHIFT options) keep going
// through its iterator.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

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

// The pages of one stream (one CPU of one buffer, layout.cpu_data[index]).
class StreamPages;
struct StreamPagesDeleter {
    void operator()(StreamPages* p) const;
};
using StreamPagesPtr = std::unique_ptr<StreamPages, StreamPagesDeleter>;

// Opens a stream; compressed data is inflated here (any thread may do it). Throws
// InputError on corrupt chunks.
StreamPagesPtr open_stream(const std::string& path, const DatLayout& layout, std::size_t index);

// The stream's next page (page_size bytes), nullptr at the end; `at` gets its file
// offset. Valid until the next call.
const unsigned char* next_page(StreamPages& pages, std::uint64_t& at);

class PageCursor;
// Walks one stream's records in order. long_size is the kernel's
// (tep_get_header_page_size). Throws InputError on corrupt pages.
class StreamCursor {
public:
    StreamCursor(StreamPages& pages, std::uint64_t page_size, int long_size);
    ~StreamCursor();
    StreamCursor(StreamCursor&&) noexcept;  // defined where PageCursor is complete
    // Next record, false at the end; `rec` stays valid until the following call.
    bool next(RawRecord& rec);

private:
    StreamPages& pages_;
    std::uint64_t page_size_;
    int long_size_;
    std::unique_ptr<PageCursor> page_;
    std::uint64_t offset_ = 0;
    long long missed_ = 0;
};

// The records of one page held in memory (a live recording's, as read from the ring
// buffer), in order, each handed to `each` with `cpu` and `offset` (where the page
// starts in that CPU's data). `missed`: events the CPU lost before its next record,
// carried from page to page (a page that says it follows a loss may hold no record);
// the first record after a loss carries it, as StreamCursor's do. Throws InputError
// naming `shown` and the byte when the page cannot be right.
void walk_page(const unsigned char* page, std::uint64_t page_size, int long_size, int cpu, std::uint64_t offset,
               long long& missed, const std::string& shown, const std::function<void(const RawRecord&)>& each);

// Whether the page walker can read this file (else use libtracecmd's iterator).
bool pages_readable(const DatLayout& layout);

}  // namespace irqflow
