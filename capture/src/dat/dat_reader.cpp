// trace.dat reader. The validator checks the file's layout; libtracecmd parses the
// headers and event formats (first in a child process: it can crash on corrupt ones);
// RecordDecoder decodes each record's fields by name from those formats. Ring-buffer
// pages are walked by dat_pages.cpp (compressed streams inflated on a thread each) and
// the streams merged in time order by merge_streams.cpp; files whose timestamps
// libtracecmd would adjust go through its own iterator instead. No printed text is
// parsed here.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "child_wait.hpp"
#include "dat_pages.hpp"
#include "dat_reader.hpp"
#include "dat_validate.hpp"
#include "merge_streams.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "record_decoder.hpp"
#include "tracecmd_api.h"

// Present only in sanitized builds (ASan/UBSan runtimes define it).
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace irqflow {
namespace {

// Plugins only change how events print; we decode fields, so skip loading them.
constexpr int kOpenFlags = 3;  // TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS
constexpr std::chrono::milliseconds kProbeLimit{30000};

struct HandleCloser {
    void operator()(tracecmd_input* h) const { tracecmd_close(h); }
};
using Handle = std::unique_ptr<tracecmd_input, HandleCloser>;

// Word `k` (from 0) of trace-cmd's uname option, "sysname nodename release version…".
std::string uname_word(const char* uname, int k) {
    if (!uname) return {};
    const std::string s = uname;
    std::size_t from = 0;
    for (int w = 0; w < k; ++w) {
        from = s.find(' ', from);
        if (from == std::string::npos) return {};
        ++from;
    }
    const std::size_t to = s.find(' ', from);
    return s.substr(from, to == std::string::npos ? std::string::npos : to - from);
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
// thread holds an allocator lock can deadlock the child), and always reaped; one that
// does not finish within kProbeLimit (a header parse takes milliseconds; a loop in
// libtracecmd on a crafted file would take forever) is killed.
class HeaderProbe {
public:
    HeaderProbe(const std::string& path, const DatLayout& layout, bool enabled = true) : path_(path), layout_(layout) {
        if (!enabled) return;  // pid_ -1: require_ok goes ahead (the caller probed already)
        pid_ = fork();
        if (pid_ != 0) return;
        // Die quietly: no inherited crash handlers (test runners, the GUI) in here, no
        // sanitizer/fuzzer death hook of the parent (a sanitized build reports the
        // child's crash through its exit status, like any other), nothing on stderr.
        for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) signal(sig, SIG_DFL);
        if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(nullptr);
        if (const int null = open("/dev/null", O_WRONLY); null >= 0) dup2(null, STDERR_FILENO);
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
        if (timed_out_)
            throw InputError(path_, {}, "libtracecmd did not finish parsing the " + where + " within " +
                                            std::to_string(kProbeLimit.count() / 1000) + " s (stopped it)");
        if (WIFSIGNALED(st)) throw InputError(path_, {}, "corrupt " + where + ": libtracecmd crashed while parsing them");
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) throw InputError(path_, {}, "libtracecmd cannot parse the " + where);
    }

private:
    int wait() {
        if (pid_ <= 0) return status_;
        const ChildResult r = wait_child(pid_, kProbeLimit);
        pid_ = 0;
        timed_out_ = r.timed_out;
        status_ = r.status;
        return r.status;
    }

    const std::string& path_;
    const DatLayout& layout_;
    pid_t pid_ = -1;
    int status_ = -1;
    bool timed_out_ = false;
};

// What libtracecmd made of a file's headers: its handle, and the printer of unmodelled
// events once one was asked for (declared after the handle: it unloads its plugins first).
struct ParsedHeaders {
    Handle top;
    std::optional<EventPrinter> printer;
    // Kept only for headers that are reused: the decoder built on the first read, and the
    // names it interned into that read's empty trace. A later read into an empty trace
    // copies both instead of resolving every event type again. Set before the headers
    // are shared; read-only after.
    std::optional<RecordDecoder> decoder;
    Trace names;
    // Headers that libtracecmd or the decoder refused: the same bytes get the same error
    // without another probe (a fork and a parse).
    std::optional<InputError> refused;

    EventPrinter& printer_for_events() {
        if (!printer) printer.emplace(tracecmd_get_tep(top.get()));
        return *printer;
    }
};

// Parsed headers kept by reuse_dat_headers, keyed by the file's bytes that are not CPU data.
struct HeaderReuse {
    std::mutex lock;
    std::size_t capacity = 0;
    struct Kept {
        // Headers mutated in a few bytes share their length and most of their bytes: the
        // hash spares comparing ~100 KB with each of them on every read.
        std::size_t hash;
        std::vector<char> bytes;
        std::shared_ptr<ParsedHeaders> headers;
    };
    std::deque<Kept> kept;      // least recently used first
    std::vector<char> scratch;  // the header bytes of the file being read
};

HeaderReuse& header_reuse() {
    static HeaderReuse r;
    return r;
}

// Every byte of the file that is not CPU data, in file order, read into `out` (reused
// from one read to the next, so a match costs no allocation). Headers are not only
// before the CPU data: a v7 file keeps option sections between and after the CPU data
// (a buffer's clock, its CPU list), which libtracecmd parses as headers too.
void read_header_bytes(const std::string& path, const DatLayout& layout, std::vector<char>& out) {
    out.clear();
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st{};
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> data;  // CPU data ranges [from, to)
    for (const CpuData& d : layout.cpu_data) data.emplace_back(d.offset, d.offset + d.size);
    std::sort(data.begin(), data.end());
    const auto size = static_cast<std::uint64_t>(st.st_size);
    const auto copy = [&](std::uint64_t from, std::uint64_t to) {  // appends [from, to)
        to = std::min(to, size);
        while (from < to) {
            const std::size_t at = out.size();
            out.resize(at + static_cast<std::size_t>(to - from));
            const ssize_t n = pread(fd, out.data() + at, static_cast<std::size_t>(to - from), static_cast<off_t>(from));
            if (n <= 0) {
                out.resize(at);
                return;
            }
            out.resize(at + static_cast<std::size_t>(n));
            from += static_cast<std::uint64_t>(n);
        }
    };
    std::uint64_t at = 0;
    for (const auto& [from, to] : data) {
        if (from > at) copy(at, from);
        at = std::max(at, to);
    }
    copy(at, size);
    close(fd);
}

// libtracecmd's iterator path (files whose timestamps it adjusts, or that our page
// walker does not read): records arrive merged already.
struct IteratorContext {
    const RecordDecoder* decoder;
    Batch* out;
    std::optional<InputError> error;  // exceptions must not cross libtracecmd's C frames
    std::exception_ptr other;         // anything else a sink threw (a cancelled stream)
    std::string path;
};

int on_record(tracecmd_input* /*h*/, tep_record* rec, int /*cpu*/, void* data) {
    auto& ctx = *static_cast<IteratorContext*>(data);
    try {
        ctx.decoder->decode(RawRecord{rec->data, rec->size, rec->ts, rec->cpu, rec->offset, rec->missed_events}, *ctx.out);
        return 0;
    } catch (const InputError& e) {
        ctx.error = e;
    } catch (const std::exception& e) {
        ctx.error.emplace(ctx.path, InputPosition{InputPosition::Unit::Byte, rec->offset}, e.what());
    } catch (...) {
        ctx.other = std::current_exception();
    }
    return -1;
}

void read_with_libtracecmd(const std::string& path, tracecmd_input* top, const RecordDecoder& decoder, Batch& b) {
    // -B files keep their events in instance handles; merge them all.
    std::vector<Handle> instances;
    std::vector<tracecmd_input*> handles{top};
    const int n = tracecmd_buffer_instances(top);
    for (int i = 0; i < n; ++i) {
        tracecmd_input* ih = tracecmd_buffer_instance_handle(top, i);
        if (!ih) throw InputError(path, {}, "cannot open buffer instance " + std::to_string(i));
        instances.emplace_back(ih);
        handles.push_back(ih);
    }
    IteratorContext ctx{&decoder, &b, std::nullopt, nullptr, path};
    tracecmd_iterate_events_multi(handles.data(), static_cast<int>(handles.size()), on_record, &ctx);
    if (ctx.other) std::rethrow_exception(ctx.other);
    if (ctx.error) throw *ctx.error;
}

// A latency tracer's file (trace-cmd record -p irqsoff / wakeup…) stores the tracer's
// printed text, with times relative to the start of the worst section, instead of
// event records. libtracecmd's record iterator crashes on it, and there are no KVM
// records to replay in it anyway.
void refuse_latency(const std::string& path, const DatLayout& layout) {
    if (!layout.latency) return;
    throw InputError(path, {InputPosition::Unit::Byte, layout.latency_offset},
                     "latency-format trace.dat (written for a latency tracer such as irqsoff): it holds the tracer's "
                     "printed text, not event records; record KVM events with `irqflow record` or `trace-cmd record -e kvm`");
}

}  // namespace

void probe_dat_headers(const std::string& path) {
    const DatLayout layout = validate_dat(path);
    refuse_latency(path, layout);
    HeaderProbe probe(path, layout);
    probe.require_ok();
}

void reuse_dat_headers(std::size_t files) {
    HeaderReuse& r = header_reuse();
    const std::lock_guard<std::mutex> hold(r.lock);
    r.capacity = files;
    while (r.kept.size() > files) r.kept.pop_front();
}

namespace {

// Where the events go: a sink per event, the caller's batches or heads only (at most
// one of them), else into t.events.
struct Into {
    const EventSink* sink = nullptr;
    const EventBatches* batches = nullptr;
    bool (*wants_fields)(EventKind) = nullptr;
    const HeadParts* parts = nullptr;
    int (*slot_of)(EventKind) = nullptr;
};

void read_into(const std::string& path, const LoadOptions& options, Trace& t, const Into& into) {
    // libtracecmd trusts the offsets and sizes in the file; check them first so a
    // truncated or corrupt file is an error with a position, not a crash.
    const DatLayout layout = validate_dat(path);
    refuse_latency(path, layout);
    const bool walk = pages_readable(layout);

    // Headers parsed before from the same bytes are taken as they are — only for files
    // whose pages we walk: libtracecmd's iterator would read the pages at the offsets
    // it saw in the earlier file.
    HeaderReuse& reuse = header_reuse();
    std::vector<char> key;  // set when these headers are to be kept once parsed
    std::size_t key_hash = 0;
    std::shared_ptr<ParsedHeaders> headers;
    if (walk) {
        const std::lock_guard<std::mutex> hold(reuse.lock);
        if (reuse.capacity > 0) {
            read_header_bytes(path, layout, reuse.scratch);
            key_hash = std::hash<std::string_view>{}(std::string_view(reuse.scratch.data(), reuse.scratch.size()));
            const auto same = std::find_if(reuse.kept.begin(), reuse.kept.end(),
                                           [&](const HeaderReuse::Kept& k) { return k.hash == key_hash && k.bytes == reuse.scratch; });
            if (same != reuse.kept.end()) {  // the most recently used is kept longest
                auto entry = std::move(*same);
                reuse.kept.erase(same);
                headers = entry.headers;
                reuse.kept.push_back(std::move(entry));
                if (headers->refused) throw headers->refused->with_file(path);
            } else {
                key = reuse.scratch;
            }
        }
    }
    HeaderProbe probe(path, layout, !options.headers_checked && !headers);  // forked before this reader starts threads

    // Compressed streams are inflated on their own threads (one per CPU): that needs
    // nothing from libtracecmd, so it overlaps the probe and the header parse. Not for a
    // few compressed pages, which inflate in less time than a thread takes to start and
    // end (the fuzzer's small files: a third of each read under ASan went to that).
    constexpr std::uint64_t kThreadedInflateBytes = 64 * 1024;
    const bool threads = layout.compressed && layout.data_bytes >= kThreadedInflateBytes;
    std::vector<std::future<StreamPagesPtr>> opening;
    if (walk)
        for (std::size_t i = 0; i < layout.cpu_data.size(); ++i)
            opening.push_back(std::async(threads ? std::launch::async : std::launch::deferred,
                                         [&path, &layout, i] { return open_stream(path, layout, i); }));

    std::optional<RecordDecoder> decoder;
    try {
        if (!headers) {
            auto fresh = std::make_shared<ParsedHeaders>();
            try {
                probe.require_ok();
                tracecmd_set_loglevel(TEP_LOG_NONE);
                fresh->top.reset(open_for(path, layout));
                if (!fresh->top) throw InputError(path, {}, "libtracecmd could not open this trace.dat (corrupt headers?)");
                if (!key.empty())
                    fresh->decoder.emplace(tracecmd_get_tep(fresh->top.get()), fresh->names, path, layout.page_size);
            } catch (const InputError& e) {
                if (key.empty()) throw;
                fresh = std::make_shared<ParsedHeaders>();
                fresh->refused = e;
            }
            if (!key.empty()) {
                const std::lock_guard<std::mutex> hold(reuse.lock);
                while (!reuse.kept.empty() && reuse.kept.size() >= reuse.capacity) reuse.kept.pop_front();
                if (reuse.capacity > 0) reuse.kept.push_back({key_hash, std::move(key), fresh});
            }
            if (fresh->refused) throw *fresh->refused;
            headers = std::move(fresh);
        }
        if (headers->decoder && t.name_count() == 0) {
            t.adopt_names(headers->names);
            decoder.emplace(*headers->decoder, path);
        } else {
            decoder.emplace(tracecmd_get_tep(headers->top.get()), t, path, layout.page_size);
        }
    } catch (...) {
        for (auto& o : opening) o.wait();  // they hold references into this frame
        throw;
    }
    tracecmd_input* const top = headers->top.get();

    t.meta.source = path;
    t.meta.format = "trace.dat v" + std::to_string(tracecmd_get_in_file_version(top));
    if (layout.compressed) t.meta.format += " (" + layout.compression + ")";
    t.meta.tsc2nsec = layout.tsc2nsec;
    t.meta.kernel_release = uname_word(tracecmd_get_uname(top), 2);
    t.meta.host_name = uname_word(tracecmd_get_uname(top), 1);
    if (t.meta.host_name == "(none)") t.meta.host_name.clear();  // the kernel's nodename when no hostname was set: no host
    if (const char* clk = tracecmd_get_trace_clock(top)) t.meta.clock = clk;
    t.meta.host_cpus = tracecmd_cpus(top);
    const int n = tracecmd_buffer_instances(top);
    for (int i = 0; i < n; ++i)
        if (const char* nm = tracecmd_buffer_instance_name(top, i)) {
            if (!t.meta.buffer.empty()) t.meta.buffer += ",";
            t.meta.buffer += nm;
        }

    Batch b;
    b.sink = into.sink;
    b.batches = into.batches;
    b.fields_of(into.wants_fields);
    if (into.parts) b.slots_of(into.slot_of);
    if (options.other_event_info && !into.sink && !into.batches && !into.parts) {
        b.printer = &headers->printer_for_events();
        b.other_info = &t.raw;
    }
    if (walk) {
        std::vector<StreamPagesPtr> streams;
        std::optional<InputError> first_error;
        for (auto& o : opening) {  // collect all, so no thread outlives this frame
            try {
                streams.push_back(o.get());
            } catch (const InputError& e) {
                if (!first_error) first_error = e;
            }
        }
        if (first_error) throw *first_error;
        if (into.parts) decode_heads(streams, layout, *decoder, *into.parts, b);
        else decode_merged(streams, layout, *decoder, b);
    } else if (into.parts) {
        const std::vector<HeadSink> sinks = into.parts->start(1);
        b.heads = &sinks[0];
        read_with_libtracecmd(path, top, *decoder, b);
        b.flush_heads();
        b.heads = nullptr;
    } else {
        read_with_libtracecmd(path, top, *decoder, b);
    }
    t.events = std::move(b.events);

    tep_handle* tep = tracecmd_get_tep(top);
    for (const std::int32_t tid : b.tids) {
        if (tid < 0 || t.comms.count(tid)) continue;
        const char* comm = tep_data_comm_from_pid(tep, tid);
        t.comms[tid] = comm ? comm : "<...>";
    }
    if (b.added == 0 && layout.data_bytes > 0)
        throw InputError(path, {InputPosition::Unit::Byte, layout.data_offset}, "trace data present but no record could be decoded");
}

}  // namespace

void read_trace_dat_into(const std::string& path, const LoadOptions& options, Trace& t, const EventSink* sink,
                         bool (*wants_fields)(EventKind)) {
    read_into(path, options, t, {.sink = sink, .wants_fields = wants_fields});
}

void read_trace_dat_into(const std::string& path, const LoadOptions& options, Trace& t, const EventBatches& batches,
                         bool (*wants_fields)(EventKind)) {
    read_into(path, options, t, {.batches = &batches, .wants_fields = wants_fields});
}

void read_trace_dat_heads(const std::string& path, const LoadOptions& options, Trace& t, const HeadParts& parts,
                          int (*slot_of)(EventKind)) {
    read_into(path, options, t, {.parts = &parts, .slot_of = slot_of});
}

Trace read_trace_dat(const std::string& path, const LoadOptions& options) {
    Trace t;
    read_trace_dat_into(path, options, t, nullptr);
    return t;
}

}  // namespace irqflow
