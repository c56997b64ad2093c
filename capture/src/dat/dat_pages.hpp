// Reads the ring-buffer pages of a trace.dat directly (v6 raw, v7 zstd chunks) and
// walks their records (the kernel's ring-buffer page format), one CPU stream at a time.
//
// Why not libtracecmd's iterator: it allocates and frees a record per event, which was
// the reader's largest cost. libtracecmd still parses the headers and formats; files
// whose timestamps it would adjust (OFFSET, TSC2NSEC, TIME_SHIFT options) keep going
// through its iterator.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
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
// For reading a stream in parts (merge_streams.cpp): its pages, the time in page k's header
// (0 if unreadable), another walker of it from page k on, and back to its first page.
std::uint64_t page_count(const StreamPages& pages);
std::uint64_t page_time(const StreamPages& pages, std::uint64_t k);
StreamPagesPtr from_page(const StreamPages& pages, std::uint64_t k);
void rewind(StreamPages& pages);

// One ring-buffer page being walked. The format is the kernel's (described by the
// header_page/header_event files stored in every trace.dat): a page header
// (u64 timestamp, long commit) then events, each a u32 header holding a 5-bit
// type_len and a 27-bit time delta. type_len 1..28: data of type_len*4 bytes;
// 0: length in the next word; 29: padding; 30: time extend; 31: absolute stamp.
class PageCursor {
public:
    // Loads a page; false when its header is impossible.
    bool load(const unsigned char* p, std::uint64_t page, int long_size) {
        const std::uint64_t header = 8 + static_cast<std::uint64_t>(long_size);
        std::uint64_t commit = 0;
        std::memcpy(&ts_, p, 8);
        std::memcpy(&commit, p + 8, static_cast<std::size_t>(long_size));
        constexpr std::uint64_t kMissed = 1ULL << 31, kStored = 1ULL << 30;
        size_ = commit & ~(kMissed | kStored);
        if (long_size == 8) size_ &= 0xffffffffULL;
        if (size_ > page - header) return false;
        data_ = p + header;
        pos_ = 0;
        missed_ = 0;
        if (commit & kMissed) {
            missed_ = -1;
            if ((commit & kStored) && size_ + static_cast<std::uint64_t>(long_size) <= page - header) {
                std::uint64_t n = 0;
                std::memcpy(&n, data_ + size_, static_cast<std::size_t>(long_size));
                missed_ = static_cast<long long>(n);
            }
        }
        return true;
    }
    long long missed() const { return missed_; }
    std::uint64_t offset() const { return pos_; }

    // Next data event; false at the end of the page. Throws (via bad) on corruption.
    bool next(const void*& data, int& size, std::uint64_t& ts, bool& bad) {
        while (pos_ + 4 <= size_) {
            std::uint32_t h;
            std::memcpy(&h, data_ + pos_, 4);
            const std::uint32_t type = h & 31, delta = h >> 5;
            std::uint32_t word = 0;
            if (type == 0 || type >= 29) {
                if (pos_ + 8 > size_) { bad = true; return false; }
                std::memcpy(&word, data_ + pos_ + 4, 4);
            }
            switch (type) {
            case 29:  // padding: without a delta it ends the page's data
                if (delta == 0) return false;
                pos_ += 4 + static_cast<std::uint64_t>(word);
                continue;
            case 30:  // time extend
                ts_ += (static_cast<std::uint64_t>(word) << 27) | delta;
                pos_ += 8;
                continue;
            case 31: {  // absolute time stamp; the top bits carry over from the current time
                std::uint64_t abs = (static_cast<std::uint64_t>(word) << 27) | delta;
                constexpr std::uint64_t kMsb = ~((1ULL << 59) - 1);
                if (ts_ & kMsb) {
                    abs |= ts_ & kMsb;
                    if (abs < ts_) abs += 1ULL << 59;
                }
                ts_ = abs;
                pos_ += 8;
                continue;
            }
            case 0:
                if (word < 4 || pos_ + 4 + word > size_) { bad = true; return false; }
                data = data_ + pos_ + 8;
                size = static_cast<int>(word - 4);
                pos_ += 4 + static_cast<std::uint64_t>(word);
                break;
            default:
                if (pos_ + 4 + type * 4ULL > size_) { bad = true; return false; }
                data = data_ + pos_ + 4;
                size = static_cast<int>(type * 4);
                pos_ += 4 + type * 4ULL;
                break;
            }
            ts_ += delta;
            ts = ts_;
            return true;
        }
        return false;
    }

private:
    const unsigned char* data_ = nullptr;
    std::uint64_t size_ = 0, pos_ = 0, ts_ = 0;
    long long missed_ = 0;
};

// Walks one stream's records in order. long_size is the kernel's
// (tep_get_header_page_size). Throws InputError on corrupt pages. (Here, inline: every
// record of both passes comes through next(), and a call per record was a tenth of it.)
class StreamCursor {
public:
    StreamCursor(StreamPages& pages, std::uint64_t page_size, int long_size);
    // Next record, false at the end; `rec` stays valid until the following call.
    bool next(RawRecord& rec) {
        bool bad = false;
        if (page_.next(rec.data, rec.size, rec.ts, bad)) [[likely]] {
            fill(rec);
            return true;
        }
        return next_page(rec, bad);
    }
    // Where the last record next() gave lies: its page (from 0 in the stream) and the
    // byte after it in that page's data.
    std::pair<std::uint64_t, std::uint64_t> where() const { return {page_index(), page_.offset()}; }

private:
    void fill(RawRecord& rec) {
        rec.cpu = cpu_;
        rec.offset = offset_;
        rec.missed = missed_;
        missed_ = 0;
    }
    // The page ended (or was corrupt: `bad`): the first record of the next page with one.
    bool next_page(RawRecord& rec, bool bad);
    std::uint64_t page_index() const;

    StreamPages& pages_;
    std::uint64_t page_size_;
    int long_size_;
    int cpu_;
    PageCursor page_;
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
