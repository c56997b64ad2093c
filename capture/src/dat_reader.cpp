// trace.dat reader: the validator checks the layout, libtracecmd parses headers and
// event formats, and each record's fields are decoded by name from those formats
// (dat_pages.cpp walks the pages; libtracecmd's iterator for files it must adjust).
// No printed text is parsed here.
#include <sys/stat.h>
#include <sys/wait.h>

#include <csignal>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "dat_pages.hpp"
#include "dat_validate.hpp"
#include "event_decode.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "tracecmd_api.h"

namespace irqflow {
namespace {

// Plugins only change how events print; we decode fields, so skip loading them.
constexpr int kOpenFlags = 3;  // TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS

struct HandleCloser {
    void operator()(tracecmd_input* h) const { tracecmd_close(h); }
};
using Handle = std::unique_ptr<tracecmd_input, HandleCloser>;

// What we resolved once per event type id: the kind, its name, and the
// libtraceevent field handles, looked up by name the first time they are asked for.
struct TypeInfo {
    bool resolved = false;
    EventKind kind = EventKind::Other;
    std::uint16_t name_id = 0;
    tep_event* ev = nullptr;
    std::array<std::pair<const char*, tep_format_field*>, 16> fields{};
    std::size_t nfields = 0;
    // For kinds whose slots are the kernel fields of the same name: resolved once.
    bool plain = false;
    std::array<tep_format_field*, kMaxFields> slot_fields{};

    tep_format_field* field(const char* name) {
        for (std::size_t i = 0; i < nfields; ++i)
            if (fields[i].first == name) return fields[i].second;  // names are literals
        tep_format_field* f = ev ? tep_find_field(ev, name) : nullptr;
        if (nfields < fields.size()) fields[nfields++] = {name, f};
        return f;
    }
};

struct ReadContext {
    Trace* trace = nullptr;
    const std::string* path = nullptr;
    std::uint64_t page_size = 4096;
    std::unordered_map<tep_handle*, std::vector<TypeInfo>> types;
    tep_handle* last_tep = nullptr;        // one tep per file in practice: skip the map
    std::vector<TypeInfo>* last_types = nullptr;
    // common_type / common_pid sit at the same place in every event of a file.
    const tep_format_field* common_type = nullptr;
    const tep_format_field* common_pid = nullptr;
    std::uint64_t next_record = 0;
    // Set when a record is unusable; the callback then stops the walk (exceptions must
    // not cross libtracecmd's C frames).
    std::optional<InputError> error;
};

// Reads a scalar field straight from the record (the file is little-endian: checked
// by the validator); sign-extends signed fields narrower than 64 bits.
std::int64_t read_field(const tep_format_field* f, const void* data) {
    const auto* p = static_cast<const unsigned char*>(data) + f->offset;
    std::uint64_t v = 0;
    switch (f->size) {
    case 1: v = *p; break;
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
    case 8: std::memcpy(&v, p, 8); break;
    default: return 0;
    }
    if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
        const int bits = f->size * 8;
        const auto sign = 1ULL << (bits - 1);
        return static_cast<std::int64_t>((v ^ sign) - sign);
    }
    return static_cast<std::int64_t>(v);
}

// Reads kernel fields of one record by name; absent fields stay absent.
class Fields {
public:
    Fields(TypeInfo& ti, const void* data, int size) : ti_(ti), data_(data), size_(size) {}
    std::optional<std::int64_t> operator()(const char* name) const {
        tep_format_field* f = ti_.field(name);
        if (!f || f->offset + f->size > size_) return std::nullopt;  // a field past the record is not there
        return read_field(f, data_);
    }

private:
    TypeInfo& ti_;
    const void* data_;
    int size_;
};

void copy(Event& e, int slot, std::optional<std::int64_t> v) {
    if (v) e.set(slot, *v);
}

// Fills the normalized slots from the kernel's fields. Most slots carry the kernel
// field of the same name; the cases below are where the kernel packs or names
// things differently (and where report text can only show the decoded facts).
void decode(Event& e, const Fields& r) {
    const auto bit = [](std::int64_t w, std::int64_t n) { return (w >> n) & 1; };
    switch (e.kind) {
    case EventKind::InjVirq: {  // "irq" before Linux 5.x, "vector" after
        auto v = r("vector");
        copy(e, slot::inj_vector, v ? v : r("irq"));
        copy(e, slot::inj_soft, r("soft"));
        copy(e, slot::inj_reinjected, r("reinjected"));
        return;
    }
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq:  // dm holds the ICR delivery-mode bits (10:8)
        copy(e, slot::accept_apicid, r("apicid"));
        if (auto dm = r("dm")) e.set(slot::accept_dm, (*dm >> 8) & 7);
        if (auto tm = r("tm")) e.set(slot::accept_tm, *tm != 0);  // the raw ICR trigger bit (0x8000)
        copy(e, slot::accept_vec, r("vec"));
        if (e.kind == EventKind::ApicAcceptIrq) copy(e, slot::accept_coalesced, r("coalesced"));
        return;
    case EventKind::ApicIpi:
        copy(e, slot::ipi_dest_id, r("dest_id"));
        if (auto w = r("icr_low")) decode_packed(e, static_cast<std::uint64_t>(*w));
        return;
    case EventKind::IoapicSetIrq:  // slots: pin, dst, vec, dm, dest_mode, tm, masked, coalesced
        copy(e, 0, r("pin"));
        copy(e, 7, r("coalesced"));
        if (auto w = r("e")) decode_packed(e, static_cast<std::uint64_t>(*w));
        return;
    case EventKind::PicSetIrq: {
        copy(e, 0, r("chip"));
        auto pin = r("pin");
        copy(e, 1, pin);
        if (auto elcr = r("elcr"); elcr && pin) e.set(2, bit(*elcr, *pin));
        if (auto imr = r("imr"); imr && pin) e.set(3, bit(*imr, *pin));
        copy(e, 4, r("coalesced"));
        return;
    }
    case EventKind::MsiSetIrq: {
        auto addr = r("address");
        auto data = r("data");
        if (!addr || !data) return;
        e.set(0, ((*addr >> 12) & 0xff) | ((*addr >> 32) & 0xffffff00));
        e.set(1, *data & 0xff);
        e.set(2, (*data >> 8) & 7);
        e.set(3, bit(*addr, 2));
        e.set(4, bit(*data, 15));
        e.set(5, bit(*addr, 3));
        return;
    }
    default: {
        const auto& info = kind_info(e.kind);
        for (std::size_t i = 0; i < info.nfields; ++i) copy(e, static_cast<int>(i), r(info.fields[i].data()));
        return;
    }
    }
}

// Kinds whose normalized slots need more than a same-named kernel field.
bool special_kind(EventKind k) {
    switch (k) {
    case EventKind::InjVirq:
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq:
    case EventKind::ApicIpi:
    case EventKind::IoapicSetIrq:
    case EventKind::PicSetIrq:
    case EventKind::MsiSetIrq: return true;
    default: return false;
    }
}

TypeInfo& resolve(ReadContext& ctx, tep_handle* tep, int type) {
    if (tep != ctx.last_tep) {
        ctx.last_tep = tep;
        ctx.last_types = &ctx.types[tep];
    }
    auto& table = *ctx.last_types;
    if (type < 0) type = 0;
    if (static_cast<std::size_t>(type) >= table.size()) table.resize(static_cast<std::size_t>(type) + 1);
    TypeInfo& ti = table[static_cast<std::size_t>(type)];
    if (ti.resolved) return ti;
    ti.resolved = true;
    ti.ev = tep_find_event(tep, type);
    std::string name = ti.ev && ti.ev->name ? ti.ev->name : "unknown_event_" + std::to_string(type);
    ti.name_id = ctx.trace->intern(name);
    if (auto kind = kind_by_name(name); kind && ti.ev) ti.kind = *kind;
    if (ti.kind != EventKind::Other && !special_kind(ti.kind)) {
        ti.plain = true;
        const auto& info = kind_info(ti.kind);
        for (std::size_t i = 0; i < info.nfields; ++i) ti.slot_fields[i] = tep_find_field(ti.ev, info.fields[i].data());
    }
    return ti;
}

// Turns one ring-buffer record into a normalized event (plus a Lost marker before it
// when its CPU dropped events). Throws InputError on records that cannot be right.
void decode_record(ReadContext& ctx, tep_handle* tep, const RawRecord& rec) {
    Trace& t = *ctx.trace;
    auto fail = [&](const std::string& what) { throw InputError(*ctx.path, {InputPosition::Unit::Byte, rec.offset}, what); };
    if (rec.size < 8) fail("record shorter than the common event header");
    if (static_cast<std::uint64_t>(rec.size) > ctx.page_size)
        fail("record of " + std::to_string(rec.size) + " bytes in a " + std::to_string(ctx.page_size) +
             "-byte page: corrupt ring-buffer data or header formats");
    if (!ctx.common_type) {
        tep_event* any = tep_find_event(tep, static_cast<int>(*static_cast<const std::uint16_t*>(rec.data)));
        if (!any) any = tep_get_first_event(tep);
        ctx.common_type = any ? tep_find_common_field(any, "common_type") : nullptr;
        ctx.common_pid = any ? tep_find_common_field(any, "common_pid") : nullptr;
        if (!ctx.common_type || !ctx.common_pid || ctx.common_type->offset + ctx.common_type->size > 8 ||
            ctx.common_pid->offset + ctx.common_pid->size > 8)
            fail("event header formats lack common_type/common_pid");
    }
    if (rec.missed != 0) {
        Event lost;
        lost.kind = EventKind::Lost;
        lost.name_id = t.intern("lost_events");
        lost.ts = TimestampNs(static_cast<std::int64_t>(rec.ts));
        lost.cpu = HostCpu(rec.cpu);
        lost.record = ctx.next_record;
        lost.set(slot::lost_count, rec.missed > 0 ? rec.missed : -1);
        t.events.push_back(lost);
    }
    TypeInfo& ti = resolve(ctx, tep, static_cast<int>(read_field(ctx.common_type, rec.data)));
    Event e;
    e.ts = TimestampNs(static_cast<std::int64_t>(rec.ts));
    e.cpu = HostCpu(rec.cpu);
    e.tid = Tid(static_cast<std::int32_t>(read_field(ctx.common_pid, rec.data)));
    e.kind = ti.kind;
    e.name_id = ti.name_id;
    e.record = ctx.next_record++;
    if (ti.kind == EventKind::Other) {
        e.raw_off = static_cast<std::uint32_t>(t.raw.size());
        e.raw_len = static_cast<std::uint32_t>(rec.size);
        t.raw.append(static_cast<const char*>(rec.data), e.raw_len);
    } else if (ti.plain) {
        for (std::size_t i = 0; i < kMaxFields; ++i) {
            const tep_format_field* f = ti.slot_fields[i];
            if (f && f->offset + f->size <= rec.size) e.set(static_cast<int>(i), read_field(f, rec.data));
        }
    } else {
        decode(e, Fields(ti, rec.data, rec.size));
    }
    t.events.push_back(e);
}

// libtracecmd calls this from C: nothing may propagate out of it.
int on_record(tracecmd_input* h, tep_record* rec, int /*cpu*/, void* data) {
    auto& ctx = *static_cast<ReadContext*>(data);
    try {
        decode_record(ctx, tracecmd_get_tep(h),
                      RawRecord{rec->data, rec->size, rec->ts, rec->cpu, rec->offset, rec->missed_events});
        return 0;
    } catch (const InputError& e) {
        ctx.error = e;
        return -1;
    } catch (const std::exception& e) {
        ctx.error.emplace(*ctx.path, InputPosition{InputPosition::Unit::Byte, rec->offset}, e.what());
        return -1;
    }
}

// Walks all handles' records in time order (ties: earlier handle, then lower CPU, as
// trace-cmd report orders them). tracecmd_read_next_data is ~2.5x faster than
// tracecmd_iterate_events on compressed files (shared notes, stack.md).
void merge_records(const std::vector<tracecmd_input*>& handles, ReadContext& ctx) {
    int cpu = 0;
    if (handles.size() == 1) {
        while (tep_record* rec = tracecmd_read_next_data(handles[0], &cpu)) {
            const int r = on_record(handles[0], rec, cpu, &ctx);
            tracecmd_free_record(rec);
            if (r < 0) return;
        }
        return;
    }
    for (;;) {
        tracecmd_input* best = nullptr;
        unsigned long long best_ts = 0;
        for (auto* h : handles) {
            tep_record* peek = tracecmd_peek_next_data(h, &cpu);
            if (peek && (!best || peek->ts < best_ts)) {
                best = h;
                best_ts = peek->ts;
            }
        }
        if (!best) return;
        tep_record* rec = tracecmd_read_next_data(best, &cpu);
        if (!rec) return;
        const int r = on_record(best, rec, cpu, &ctx);
        tracecmd_free_record(rec);
        if (r < 0) return;
    }
}

std::string release_from_uname(const char* uname) {
    // trace-cmd stores "sysname nodename release version…"
    if (!uname) return {};
    std::string s = uname;
    std::size_t a = s.find(' ');
    if (a == std::string::npos) return {};
    std::size_t b = s.find(' ', a + 1);
    if (b == std::string::npos) return {};
    std::size_t c = s.find(' ', b + 1);
    return s.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
}

// Headers and formats only when we walk the pages ourselves; the full open (which
// also prepares libtracecmd's per-CPU readers) otherwise.
tracecmd_input* open_for(const std::string& path, const DatLayout& layout) {
    return pages_readable(layout) ? tracecmd_open_head(path.c_str(), kOpenFlags) : tracecmd_open(path.c_str(), kOpenFlags);
}

// libtracecmd can crash on corrupt headers (seen: a flipped byte in the event formats
// makes tracecmd_open_fd crash in its own cleanup). Open the file once in a child
// process first, so such a file is an error message instead of a dead process.
// The child is forked before this process starts any thread (a fork while another
// thread holds an allocator lock can deadlock the child), and always reaped.
class HeaderProbe {
public:
    HeaderProbe(const std::string& path, const DatLayout& layout) : path_(path), layout_(layout) {
        pid_ = fork();
        if (pid_ != 0) return;
        // Die quietly: no inherited crash handlers (test runners, the GUI) in here.
        for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) signal(sig, SIG_DFL);
        tracecmd_set_loglevel(TEP_LOG_NONE);
        tracecmd_input* h = open_for(path, layout);
        if (!h) _exit(3);
        if (!pages_readable(layout)) {
            const int n = tracecmd_buffer_instances(h);
            for (int i = 0; i < n; ++i) {
                tracecmd_input* ih = tracecmd_buffer_instance_handle(h, i);
                if (!ih) _exit(3);
                tracecmd_close(ih);
            }
        }
        tracecmd_close(h);
        _exit(0);
    }
    ~HeaderProbe() { wait(); }
    HeaderProbe(const HeaderProbe&) = delete;
    HeaderProbe& operator=(const HeaderProbe&) = delete;

    // Throws InputError when the child could not parse the headers.
    void require_ok() {
        const int st = wait();
        if (st < 0) return;  // could not fork: go ahead unprotected
        const std::string where = "headers (bytes 0-" + std::to_string(layout_.data_offset) + ")";
        if (WIFSIGNALED(st)) throw InputError(path_, {}, "corrupt " + where + ": libtracecmd crashed while parsing them");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) throw InputError(path_, {}, "libtracecmd cannot parse the " + where);
    }

private:
    int wait() {
        if (pid_ <= 0) return status_;
        int st = 0;
        while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {}
        pid_ = 0;
        status_ = st;
        return st;
    }

    const std::string& path_;
    const DatLayout& layout_;
    pid_t pid_ = -1;
    int status_ = -1;
};

}  // namespace

Trace read_trace_dat(const std::string& path) {
    // libtracecmd trusts the offsets and sizes in the file; check them first so a
    // truncated or corrupt file is an error with a position, not a crash.
    const DatLayout layout = validate_dat(path);
    HeaderProbe probe(path, layout);
    // Decompression needs nothing from libtracecmd: start it now, one thread per CPU,
    // so it overlaps the header probe and parse.
    std::vector<std::future<Inflated>> inflated;
    if (pages_readable(layout) && layout.compressed)
        for (std::size_t i = 0; i < layout.cpu_data.size(); ++i)
            inflated.push_back(std::async(std::launch::async, inflate_cpu, std::cref(path), std::cref(layout), i));
    probe.require_ok();
    tracecmd_set_loglevel(TEP_LOG_NONE);
    Handle top(open_for(path, layout));
    if (!top) throw InputError(path, {}, "libtracecmd could not open this trace.dat (corrupt headers?)");

    Trace t;
    t.meta.source = path;
    t.meta.format = "trace.dat v" + std::to_string(tracecmd_get_in_file_version(top.get()));
    if (layout.compressed) t.meta.format += " (" + layout.compression + ")";
    t.meta.kernel_release = release_from_uname(tracecmd_get_uname(top.get()));
    if (const char* clk = tracecmd_get_trace_clock(top.get())) t.meta.clock = clk;
    t.meta.host_cpus = tracecmd_cpus(top.get());

    const int n = tracecmd_buffer_instances(top.get());
    for (int i = 0; i < n; ++i)
        if (const char* nm = tracecmd_buffer_instance_name(top.get(), i)) {
            if (!t.meta.buffer.empty()) t.meta.buffer += ",";
            t.meta.buffer += nm;
        }
    ReadContext ctx;
    ctx.trace = &t;
    ctx.path = &path;
    ctx.page_size = layout.page_size;
    t.events.reserve(layout.estimated_events);
    if (pages_readable(layout)) {
        tep_handle* tep = tracecmd_get_tep(top.get());
        walk_pages(path, layout, tep, layout.compressed ? &inflated : nullptr, [&](const RawRecord& r) {
            decode_record(ctx, tep, r);
            return true;
        });
    } else {
        // -B files keep their events in instance handles; merge them all.
        std::vector<Handle> instances;
        std::vector<tracecmd_input*> handles{top.get()};
        for (int i = 0; i < n; ++i) {
            tracecmd_input* ih = tracecmd_buffer_instance_handle(top.get(), i);
            if (!ih) throw InputError(path, {}, "cannot open buffer instance " + std::to_string(i));
            instances.emplace_back(ih);
            handles.push_back(ih);
        }
        merge_records(handles, ctx);
        if (ctx.error) throw *ctx.error;
    }

    tep_handle* tep = tracecmd_get_tep(top.get());
    for (const auto& e : t.events) {
        if (e.tid.value() < 0 || t.comms.count(e.tid.value())) continue;
        const char* comm = tep_data_comm_from_pid(tep, e.tid.value());
        t.comms[e.tid.value()] = comm ? comm : "<...>";
    }
    if (t.events.empty() && layout.data_bytes > 0)
        throw InputError(path, {InputPosition::Unit::Byte, layout.data_offset}, "trace data present but no record could be decoded");
    return t;
}

}  // namespace irqflow
