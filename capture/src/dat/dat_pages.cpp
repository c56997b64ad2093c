#include "dat_pages.hpp"

#include <fcntl.h>
#include <traceevent/event-parse.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <future>
#include <memory>
#include <vector>

#include "irqflow/capture/error.hpp"

namespace irqflow {
namespace {

class Fd {
public:
    explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
    ~Fd() { if (fd_ >= 0) ::close(fd_); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }

private:
    int fd_;
};

[[noreturn]] void fail_at(const std::string& path, std::uint64_t at, const std::string& what) {
    throw InputError(path, {InputPosition::Unit::Byte, at}, what);
}

void read_exact(const std::string& path, int fd, void* dst, std::uint64_t n, std::uint64_t at, std::uint64_t end,
                const char* what) {
    if (at > end || n > end - at) fail_at(path, at, std::string(what) + " runs past its CPU data region");
    auto got = ::pread(fd, dst, n, static_cast<off_t>(at));
    if (got < 0 || static_cast<std::uint64_t>(got) != n) fail_at(path, at, std::string("cannot read ") + what);
}

constexpr std::uint64_t kSlack = 64;  // zeroed bytes after the pages: a corrupt page never reads past memory

// Appends the `usize` bytes one zstd chunk holds to `out`, growing it as the data comes
// out rather than by `usize` at once: a frame that does not state its size, in front of a
// chunk that claims 256 MB, had a 30 KB file allocate and zero 256 MB before its data was
// found corrupt (found by fuzz_dat). A chunk whose frame holds more or less than `usize`
// is refused.
void inflate_chunk(const std::string& path, std::uint64_t at, ZSTD_DCtx* dctx, const std::vector<unsigned char>& packed,
                   std::uint32_t usize, std::vector<unsigned char>& out) {
    constexpr std::size_t kStep = 1 << 20;
    const std::size_t base = out.size();
    ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
    ZSTD_inBuffer in{packed.data(), packed.size(), 0};
    std::size_t produced = 0, left = 1;  // left: what ZSTD_decompressStream says it still needs (0: frame done)
    while (left != 0) {
        if (produced == out.size() - base) out.resize(base + produced + std::min<std::size_t>(usize - produced, kStep));
        ZSTD_outBuffer o{out.data() + base, out.size() - base, produced};
        const std::size_t in_before = in.pos;
        left = ZSTD_decompressStream(dctx, &o, &in);
        if (ZSTD_isError(left)) fail_at(path, at, std::string("corrupt compressed chunk: ") + ZSTD_getErrorName(left));
        const bool moved = o.pos != produced || in.pos != in_before;
        produced = o.pos;
        if (left != 0 && !moved)  // no input left to read, or no room left to write
            fail_at(path, at, produced == usize ? "corrupt compressed chunk: it holds more than " + std::to_string(usize) + " bytes"
                                                : std::string("corrupt compressed chunk: its data ends before its frame does"));
    }
    if (produced != usize)
        fail_at(path, at, "corrupt compressed chunk: it holds " + std::to_string(produced) + " bytes, not " + std::to_string(usize));
    out.resize(base + produced);
}

}  // namespace

// The pages of one CPU of one buffer: read a few pages at a time from the file, or served
// from data inflated beforehand (compressed files), shared with the other walkers of the
// same pages (StreamPages::from_page).
class StreamPages {
public:
    StreamPages(const std::string& path, const CpuData& d, std::uint64_t page)
        : path_(path), fd_(path), start_(d.offset), pos_(d.offset), end_(d.offset + d.size), page_(page), cpu_(d.cpu),
          per_read_(std::max<std::uint64_t>(1, kReadBytes / page)), buf_(per_read_ * page + kSlack, 0) {
        if (fd_.get() < 0) throw InputError(path, {}, "cannot open file");
    }
    StreamPages(const std::string& path, const CpuData& d, std::shared_ptr<const Inflated> inflated, std::uint64_t page)
        : path_(path), fd_(""), page_(page), cpu_(d.cpu), inflated_(std::move(inflated)), from_memory_(true) {
        end_ = inflated_->bytes.size() - kSlack;
    }

    int cpu() const { return cpu_; }
    const std::string& path() const { return path_; }

    // Next page, or nullptr at the end. `at` gets the file position it came from.
    const unsigned char* next(std::uint64_t& at) {
        if (from_memory_) {
            if (pos_ + page_ > end_) return nullptr;
            at = inflated_->chunk_offsets[pos_ / inflated_->chunk_size];
            const unsigned char* p = inflated_->bytes.data() + pos_;
            pos_ += page_;
            return p;
        }
        if (pos_ >= end_) return nullptr;
        if (used_ == held_) fill();
        const unsigned char* p = buf_.data() + used_++ * page_;
        at = pos_;
        pos_ += std::min<std::uint64_t>(page_, end_ - pos_);
        return p;
    }
    // Which page of the stream next() returned last (from 0).
    std::uint64_t last_page() const { return (pos_ - start_ + page_ - 1) / page_ - 1; }

    // Pages in the stream (a short last one of a file counts; inflated data holds whole pages).
    std::uint64_t pages() const { return from_memory_ ? (end_ - start_) / page_ : (end_ - start_ + page_ - 1) / page_; }
    // The time in page k's header (0 when it cannot be read).
    std::uint64_t page_time(std::uint64_t k) const {
        std::uint64_t t = 0;
        const std::uint64_t at = start_ + k * page_;
        if (k >= pages() || end_ - at < 8) return 0;
        if (from_memory_) std::memcpy(&t, inflated_->bytes.data() + at, 8);
        else if (::pread(fd_.get(), &t, 8, static_cast<off_t>(at)) != 8) return 0;
        return t;
    }
    // A walker of the same pages from page k on (its own file handle, or the same memory).
    StreamPagesPtr from_page(std::uint64_t k) const {
        StreamPagesPtr other(from_memory_ ? new StreamPages(path_, CpuData{cpu_, 0, 0}, inflated_, page_)
                                          : new StreamPages(path_, CpuData{cpu_, start_, end_ - start_}, page_));
        other->pos_ = std::min(other->end_, start_ + std::min(k, pages()) * page_);
        return other;
    }
    // Back to the first page.
    void rewind() {
        pos_ = start_;
        held_ = used_ = 0;
    }

private:
    // Several pages per read: a read per page was a fifth of the attribution pass (in the
    // kernel), and 64 KB still sit in the second-level cache when they are decoded.
    static constexpr std::uint64_t kReadBytes = 64 * 1024;
    // The pages from pos_ on (a short last page zero-filled). A read that comes back
    // short is retried a page at a time, so that the error names the page.
    void fill() {
        const std::uint64_t n = std::min<std::uint64_t>(per_read_ * page_, end_ - pos_);
        held_ = (n + page_ - 1) / page_;
        used_ = 0;
        if (n < held_ * page_) std::memset(buf_.data() + n, 0, held_ * page_ - n);
        const auto got = ::pread(fd_.get(), buf_.data(), n, static_cast<off_t>(pos_));
        if (got >= 0 && static_cast<std::uint64_t>(got) == n) return;
        held_ = 1;
        const std::uint64_t one = std::min<std::uint64_t>(page_, end_ - pos_);
        if (one < page_) std::memset(buf_.data() + one, 0, page_ - one);
        read_exact(path_, fd_.get(), buf_.data(), one, pos_, end_, "ring-buffer page");
    }

    std::string path_;
    Fd fd_;
    std::uint64_t start_ = 0, pos_ = 0, end_ = 0, page_;  // file offsets, or offsets into the inflated bytes
    int cpu_;
    std::uint64_t per_read_ = 1, held_ = 0, used_ = 0;  // pages a read brings, in buf_, handed out
    std::vector<unsigned char> buf_;
    std::shared_ptr<const Inflated> inflated_;
    bool from_memory_ = false;
};

bool pages_readable(const DatLayout& layout) {
    if (layout.latency || layout.adjusts_timestamps) return false;
    if (layout.version == 6) return !layout.compressed;
    return layout.version == 7 && (!layout.compressed || layout.compression == "zstd");
}

Inflated inflate_cpu(const std::string& path, const DatLayout& layout, std::size_t index) {
    const CpuData& d = layout.cpu_data.at(index);
    Fd fd(path);
    if (fd.get() < 0) throw InputError(path, {}, "cannot open file");
    const std::uint64_t end = d.offset + d.size;
    std::uint64_t pos = d.offset;
    auto u32 = [&](const char* what) {
        std::uint32_t v = 0;
        read_exact(path, fd.get(), &v, 4, pos, end, what);
        pos += 4;
        return v;
    };
    Inflated out;
    std::vector<unsigned char> packed;
    const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!dctx) throw std::bad_alloc();
    std::uint32_t chunks = u32("chunk count");
    while (chunks--) {
        const std::uint64_t at = pos;
        const std::uint32_t csize = u32("compressed chunk size");
        const std::uint32_t usize = u32("chunk size");
        if (usize == 0 || usize % layout.page_size != 0 || usize > (256u << 20) ||
            (out.chunk_size && usize > out.chunk_size))
            fail_at(path, at, "implausible chunk size " + std::to_string(usize));
        if (!out.chunk_size) out.chunk_size = usize;
        // Sizes come from the file: bound both before allocating anything for them.
        if (csize > end - pos) fail_at(path, at, "compressed chunk of " + std::to_string(csize) + " bytes runs past its CPU data region");
        packed.resize(csize);
        read_exact(path, fd.get(), packed.data(), csize, pos, end, "compressed chunk");
        pos += csize;
        const unsigned long long framed = ZSTD_getFrameContentSize(packed.data(), csize);
        if (framed == ZSTD_CONTENTSIZE_ERROR) fail_at(path, at, "corrupt compressed chunk: not a zstd frame");
        if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != usize)
            fail_at(path, at, "corrupt compressed chunk: it holds " + std::to_string(framed) + " bytes, not " + std::to_string(usize));
        inflate_chunk(path, at, dctx.get(), packed, usize, out.bytes);
        // index chunk starts by chunk_size steps; a short last chunk still maps
        for (std::uint64_t k = 0; k < (usize + out.chunk_size - 1) / out.chunk_size; ++k) out.chunk_offsets.push_back(at);
    }
    out.bytes.resize(out.bytes.size() + kSlack, 0);
    return out;
}

StreamPagesPtr open_stream(const std::string& path, const DatLayout& layout, std::size_t index) {
    const CpuData& d = layout.cpu_data.at(index);
    if (layout.compressed)
        return StreamPagesPtr(new StreamPages(path, d, std::make_shared<const Inflated>(inflate_cpu(path, layout, index)), layout.page_size));
    return StreamPagesPtr(new StreamPages(path, d, layout.page_size));
}

StreamCursor::StreamCursor(StreamPages& pages, std::uint64_t page_size, int long_size)
    : pages_(pages), page_size_(page_size), long_size_(long_size), cpu_(pages.cpu()) {}

bool StreamCursor::next_page(RawRecord& rec, bool bad) {
    for (;;) {
        if (bad) throw InputError(pages_.path(), {InputPosition::Unit::Byte, offset_}, "corrupt event in a ring-buffer page");
        const unsigned char* p = pages_.next(offset_);
        if (!p) return false;
        if (!page_.load(p, page_size_, long_size_))
            throw InputError(pages_.path(), {InputPosition::Unit::Byte, offset_}, "corrupt ring-buffer page header");
        if (page_.missed() != 0) missed_ = page_.missed();
        if (page_.next(rec.data, rec.size, rec.ts, bad)) {
            fill(rec);
            return true;
        }
    }
}

void walk_page(const unsigned char* page, std::uint64_t page_size, int long_size, int cpu, std::uint64_t offset,
               long long& missed, const std::string& shown, const std::function<void(const RawRecord&)>& each) {
    PageCursor cursor;
    if (!cursor.load(page, page_size, long_size)) throw InputError(shown, {InputPosition::Unit::Byte, offset}, "corrupt ring-buffer page header");
    if (cursor.missed() != 0) missed = cursor.missed();  // as StreamCursor::next: the newer page's count
    RawRecord rec{};
    rec.cpu = cpu;
    rec.offset = offset;
    bool bad = false;
    while (cursor.next(rec.data, rec.size, rec.ts, bad)) {
        rec.missed = missed;
        missed = 0;
        each(rec);
    }
    if (bad) throw InputError(shown, {InputPosition::Unit::Byte, offset}, "corrupt event in a ring-buffer page");
}

const unsigned char* next_page(StreamPages& pages, std::uint64_t& at) { return pages.next(at); }
std::uint64_t page_count(const StreamPages& pages) { return pages.pages(); }
std::uint64_t page_time(const StreamPages& pages, std::uint64_t k) { return pages.page_time(k); }
StreamPagesPtr from_page(const StreamPages& pages, std::uint64_t k) { return pages.from_page(k); }
void rewind(StreamPages& pages) { pages.rewind(); }
std::uint64_t StreamCursor::page_index() const { return pages_.last_page(); }

void StreamPagesDeleter::operator()(StreamPages* p) const { delete p; }

}  // namespace irqflow
