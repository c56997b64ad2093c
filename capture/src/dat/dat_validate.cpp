#include "dat_validate.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <fstream>
#include <vector>

#include "../sniff.hpp"
#include "irqflow/capture/error.hpp"

namespace irqflow {
namespace {

// Bounds-checked little-endian cursor over the file, reading only what it is asked
// for (the headers; never the ring-buffer data, which can be hundreds of MB).
class Cursor {
public:
    explicit Cursor(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb"), &std::fclose) {
        if (!f_) throw InputError(path, {}, "cannot open file");
        struct stat st {};
        if (fstat(fileno(f_.get()), &st) != 0) throw InputError(path, {}, "cannot stat file");
        size_ = static_cast<std::uint64_t>(st.st_size);
    }
    std::uint64_t size() const { return size_; }
    std::uint64_t pos() const { return pos_; }
    void seek(std::uint64_t at, const char* what) {
        if (at > size_) fail(size_, std::string(what) + " at byte " + std::to_string(at) + " lies past the end of the file: truncated");
        pos_ = at;
    }
    void need(std::uint64_t n, const char* what) const {
        if (n > size_ - pos_) fail(pos_, std::string("file ends inside ") + what + ": truncated");
    }
    void skip(std::uint64_t n, const char* what) {
        need(n, what);
        pos_ += n;
    }
    std::uint64_t uint(int bytes, const char* what) {
        unsigned char b[8] = {};
        read(b, static_cast<std::uint64_t>(bytes), what);
        std::uint64_t v = 0;
        for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[i];
        return v;
    }
    std::string cstr(const char* what, std::size_t max = 4096) {
        const std::uint64_t start = pos_;
        std::string s;
        for (;;) {
            if (pos_ >= size_) fail(start, std::string("file ends inside ") + what + ": truncated");
            unsigned char c;
            read(&c, 1, what);
            if (c == 0) return s;
            if (s.size() >= max) fail(start, std::string("unterminated string in ") + what);
            s += static_cast<char>(c);
        }
    }
    void expect(const char* literal, std::size_t n, const char* what) {
        if (!peek_equals(literal, n)) {
            need(n, what);
            fail(pos_, std::string("expected ") + what);
        }
        pos_ += n;
    }
    bool peek_equals(const char* literal, std::size_t n) {
        if (n > size_ - pos_ || n > 64) return false;
        char b[64];
        const auto at = pos_;
        read(b, n, "tag");
        pos_ = at;
        return std::memcmp(b, literal, n) == 0;
    }
    // A region [at, at+len) must lie inside the file.
    void region(std::uint64_t at, std::uint64_t len, const std::string& what) {
        if (at <= size_ && len <= size_ - at) {
            end_ = std::max(end_, at + len);
            return;
        }
        fail(size_, what + " spans bytes " + std::to_string(at) + "+" + std::to_string(len) + " but the file has " +
                        std::to_string(size_) + " bytes: truncated");
    }
    // End of the furthest region checked so far.
    std::uint64_t end() const { return std::max(end_, pos_); }
    [[noreturn]] void fail(std::uint64_t at, const std::string& msg) const {
        throw InputError(path_, {InputPosition::Unit::Byte, at}, msg);
    }

private:
    void read(void* dst, std::uint64_t n, const char* what) {
        need(n, what);
        if (n == 0) return;
        if (file_pos_ != pos_ && std::fseek(f_.get(), static_cast<long>(pos_), SEEK_SET) != 0)
            fail(pos_, std::string("read error in ") + what);
        if (std::fread(dst, 1, n, f_.get()) != n) fail(pos_, std::string("read error in ") + what);
        pos_ += n;
        file_pos_ = pos_;
    }

    std::string path_;
    std::unique_ptr<FILE, int (*)(FILE*)> f_;
    std::uint64_t size_ = 0;
    std::uint64_t pos_ = 0;
    std::uint64_t end_ = 0;
    std::uint64_t file_pos_ = 0;  // where the FILE stands: skip fseek (and its buffer flush) when equal
};

void add_cpu_data(DatLayout& l, Cursor& c, std::uint64_t off, std::uint64_t size, int cpu, int buffer) {
    if (size == 0) return;  // an idle CPU: its offset may point anywhere, even past the end
    c.region(off, size, "CPU " + std::to_string(cpu) + " data");
    l.cpu_data.push_back({cpu, off, size, buffer});
    if (size && (l.data_offset == 0 || off < l.data_offset)) l.data_offset = off;
    l.data_bytes += size;
}

// TSC2NSEC (id 14): multiplier (4 bytes), shift (4), offset (8), at the cursor.
TscToNs read_tsc2nsec(Cursor& c) {
    TscToNs t;
    t.mult = static_cast<std::uint32_t>(c.uint(4, "TSC2NSEC multiplier"));
    t.shift = static_cast<std::uint32_t>(c.uint(4, "TSC2NSEC shift"));
    t.offset = c.uint(8, "TSC2NSEC offset");
    return t;
}

// v6: fixed sequence of header blocks, then options, then flyrecord CPU table.
void walk_v6(Cursor& c, DatLayout& l) {
    c.expect("header_page", 12, "\"header_page\"");
    c.skip(c.uint(8, "header_page size"), "header_page");
    c.expect("header_event", 13, "\"header_event\"");
    c.skip(c.uint(8, "header_event size"), "header_event");
    for (auto n = c.uint(4, "ftrace format count"); n; --n) c.skip(c.uint(8, "ftrace format size"), "ftrace format");
    for (auto sys = c.uint(4, "event system count"); sys; --sys) {
        c.cstr("event system name");
        for (auto n = c.uint(4, "event count"); n; --n) c.skip(c.uint(8, "event format size"), "event format");
    }
    c.skip(c.uint(4, "kallsyms size"), "kallsyms");
    c.skip(c.uint(4, "printk formats size"), "printk formats");
    c.skip(c.uint(8, "cmdlines size"), "cmdlines");
    const auto cpus = c.uint(4, "CPU count");
    if (cpus > 4096) c.fail(c.pos() - 4, "implausible CPU count " + std::to_string(cpus));
    std::vector<std::uint64_t> buffer_offsets;
    if (c.peek_equals("options  ", 10)) {
        c.skip(10, "options tag");
        for (;;) {
            auto id = c.uint(2, "option id");
            if (id == 0) break;
            auto size = c.uint(4, "option size");
            auto start = c.pos();
            c.need(size, "option");
            if (id == 3) buffer_offsets.push_back(c.uint(8, "buffer option offset"));  // BUFFER
            if (id == 7 || id == 12 || id == 14) l.adjusts_timestamps = true;
            if (id == 14 && size == 16) l.tsc2nsec = read_tsc2nsec(c);
            c.seek(start + size, "option");
        }
    }
    if (c.peek_equals("latency  ", 10)) {  // latency traces: plain text follows
        l.latency = true;
        l.latency_offset = c.pos();
        return;
    }
    c.expect("flyrecord", 10, "\"flyrecord\" section");
    int buffer = 0;
    auto cpu_table = [&](const char* what) {
        for (std::uint64_t i = 0; i < cpus; ++i) {
            auto off = c.uint(8, what);
            auto size = c.uint(8, what);
            add_cpu_data(l, c, off, size, static_cast<int>(i), buffer);
        }
        ++buffer;
    };
    cpu_table("CPU data table");
    for (auto off : buffer_offsets) {
        c.seek(off, "buffer instance");
        if (c.peek_equals("flyrecord", 10)) c.skip(10, "flyrecord tag");
        cpu_table("instance CPU data table");
    }
}

// v7: sections located by options; options sections chained through DONE.
void walk_v7(Cursor& c, DatLayout& l) {
    l.compression = c.cstr("compression name");
    c.cstr("compression version");
    l.compressed = l.compression != "none" && !l.compression.empty();
    std::uint64_t next = c.uint(8, "first options offset");
    auto section = [&](std::uint64_t at, const std::string& what) {
        c.seek(at, what.c_str());
        const auto id = c.uint(2, "section id");
        const auto flags = c.uint(2, "section flags");
        c.uint(4, "section description");
        const auto size = c.uint(8, "section size");
        c.region(c.pos(), size, what + " (section " + std::to_string(id) + ")");
        return std::pair{flags, size};
    };
    int guard = 0;
    int buffer = 0;
    while (next) {
        if (++guard > 1024) c.fail(next, "options sections form a loop");
        auto [flags, size] = section(next, "options section");
        const auto body = c.pos();
        next = 0;
        if (flags & 1) {  // compressed options: extent checked, content left to libtracecmd
            l.adjusts_timestamps = true;  // unknown options: take libtracecmd's path
            break;
        }
        while (c.pos() < body + size) {
            const auto id = c.uint(2, "option id");
            const auto osize = c.uint(4, "option size");
            const auto start = c.pos();
            c.need(osize, "option");
            if (id == 0) {  // DONE: offset of the next options section
                next = c.uint(8, "next options offset");
                break;
            }
            if (id == 3) {  // BUFFER: flyrecord section + per-CPU data extents
                const auto fly = c.uint(8, "buffer section offset");
                c.cstr("buffer name");
                c.cstr("buffer clock");
                c.uint(4, "buffer page size");
                const auto ncpu = c.uint(4, "buffer CPU count");
                if (ncpu > 4096) c.fail(c.pos() - 4, "implausible CPU count " + std::to_string(ncpu));
                for (std::uint64_t i = 0; i < ncpu; ++i) {
                    const auto cpu = c.uint(4, "buffer CPU id");
                    const auto off = c.uint(8, "buffer CPU data offset");
                    const auto dsize = c.uint(8, "buffer CPU data size");
                    // compressed data: the size leaves out the leading 4-byte chunk count
                    add_cpu_data(l, c, off, dsize + (l.compressed && dsize ? 4 : 0), static_cast<int>(cpu), buffer);
                }
                ++buffer;
                const auto resume = c.pos();
                section(fly, "flyrecord section");
                c.seek(resume, "option");
            } else if (id == 7 || id == 12 || id == 14) {
                l.adjusts_timestamps = true;
                if (id == 14 && osize == 16) l.tsc2nsec = read_tsc2nsec(c);
            } else if (id == 22 && !l.latency) {  // BUFFER_TEXT: a latency section
                l.latency = true;
                l.latency_offset = c.uint(8, "latency section offset");
            } else if (id >= 16 && id <= 21 && osize == 8) {  // offsets of header/format sections
                const auto resume = c.pos();
                section(c.uint(8, "section offset"), "header section");
                c.seek(resume + 8, "option");
            }
            c.seek(start + osize, "option");
        }
    }
    // Sections written after the last one an option points to (trace-cmd puts the
    // compressed section-name strings last): each must be complete.
    std::uint64_t at = c.end();
    while (at < c.size()) {
        section(at, "trailing section");
        at = c.end();
    }
}

}  // namespace

bool looks_like_dat(const std::string& path) {
    // A file cut inside the magic is still a (truncated) trace.dat. Ten bytes: read
    // straight, without a stream's buffer (every command asks this of its input).
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    unsigned char head[sizeof kDatMagic] = {};
    std::size_t n = 0;
    while (n < sizeof head) {
        const ssize_t got = read(fd, head + n, sizeof head - n);
        if (got <= 0) break;
        n += static_cast<std::size_t>(got);
    }
    close(fd);
    return has_dat_magic(std::string_view(reinterpret_cast<const char*>(head), n));
}

DatLayout validate_dat(const std::string& path) {
    Cursor c(path);
    if (c.size() == 0) c.fail(0, "empty file");
    c.expect(reinterpret_cast<const char*>(kDatMagic), sizeof kDatMagic, "trace.dat magic");
    DatLayout l;
    const std::string version = c.cstr("file version", 8);
    l.version = std::atoi(version.c_str());
    const auto endian = c.uint(1, "endianness");
    if (endian != 0) c.fail(c.pos() - 1, "big-endian trace.dat files are not supported");
    const auto long_size = c.uint(1, "long size");
    if (long_size != 4 && long_size != 8) c.fail(c.pos() - 1, "invalid long size " + std::to_string(long_size));
    const auto page = c.uint(4, "page size");
    if (page < 1024 || page > (1u << 20) || (page & (page - 1))) c.fail(c.pos() - 4, "invalid page size " + std::to_string(page));
    l.page_size = page;
    if (l.version == 6) walk_v6(c, l);
    else if (l.version == 7) walk_v7(c, l);
    else c.fail(10, "unsupported trace.dat version \"" + version + "\" (6 and 7 are supported)");
    // kvm records take 24-40 bytes in a page; compressed data expands ~7x. Reserving
    // a little too much costs only address space; too little costs a full copy.
    return l;
}

}  // namespace irqflow
