#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <span>
#include <string_view>
#include <thread>
#include <tuple>

#include "dat/dat_reader.hpp"
#include "dat/dat_validate.hpp"
#include "irqflow/capture/attribution.hpp"
#include "irqflow/capture/batch_pipe.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "sniff.hpp"

namespace irqflow {

namespace {

void check_file(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw InputError(path, {}, "no such file");
    if (S_ISDIR(st.st_mode)) throw InputError(path, {}, "is a directory, not a trace");
    if (!S_ISREG(st.st_mode))  // readers seek and read twice: a pipe must be saved to a file first
        throw InputError(path, {}, "not a regular file (a pipe? save it to a file first, or give it as - to irqflow)");
    if (st.st_size == 0) throw InputError(path, {InputPosition::Unit::Byte, 0}, "empty file");
    // The first bytes say what the rest is, before any of the rest is read: a file of
    // gigabytes that is neither is refused at once, in constant memory.
    if (looks_like_dat(path)) return;  // its own validator reads the rest
    std::ifstream in(path, std::ios::binary);
    const std::string head = read_head(in);
    // perf record's own file is a frequent mistake: perf script turns it into text we read
    if (has_perf_magic(head))
        throw InputError(path, {InputPosition::Unit::Byte, 0},
                         "a perf.data file; irqflow reads its text: perf script -i " + path + " > kvm.txt, then give kvm.txt");
    // Report text has no NUL byte; a sparse file, an image or a core dump has them early.
    if (const std::size_t nul = head.find('\0'); nul != std::string::npos)
        throw InputError(path, {InputPosition::Unit::Byte, nul},
                         "binary data (a NUL byte): neither a trace.dat (no tracing magic at byte 0) nor report text");
}

constexpr std::uint64_t kCountEvery = 65536;  // FirstPass::count

}  // namespace

void check_trace_headers(const std::string& path) {
    check_file(path);
    if (looks_like_dat(path)) probe_dat_headers(path);
}

Trace load_trace(const std::string& path, const LoadOptions& options) {
    check_file(path);
    Trace t = looks_like_dat(path) ? read_trace_dat(path, options) : read_trace_text(path);
    attribute(t);
    return t;
}

TraceStream::TraceStream(const std::string& path, const LoadOptions& options, const FirstPass& watch) : path_(path), options_(options) {
    const EventSink* first_pass = watch.events;
    check_file(path);
    dat_ = looks_like_dat(path);
    if (!dat_) {
        t_ = load_trace(path, options);  // text: loaded whole
        if (first_pass)
            t_.events.for_each(*first_pass);
        if (watch.count) watch.count(t_.events.size());
        return;
    }
    if (first_pass) {  // whole events (with the fields learnt from) for the caller's pass
        attributor_ = std::make_unique<Attributor>(t_);
        std::uint64_t seen = 0;
        const EventSink learn = [a = attributor_.get(), first_pass, &watch, &seen](const Event& e) {
            a->learn(e);
            (*first_pass)(e);
            if (++seen % kCountEvery == 0 && watch.count) watch.count(seen);
        };
        read_trace_dat_into(path, options, t_, &learn, &Attributor::learns_fields);
        if (watch.count) watch.count(seen);
    } else {  // heads only: no 120-byte event built per record, one field read at most
        std::vector<Attributor> parts;  // one per part of the trace read at once
        std::atomic<std::uint64_t> seen{0};  // by all parts (the first part's thread tells watch.count)
        const HeadParts learn{[&](std::size_t n) {
            parts.clear();
            parts.reserve(n);  // (the sinks keep pointers to them)
            seen = 0;
            std::vector<HeadSink> sinks;
            for (std::size_t i = 0; i < n; ++i) {
                Attributor& part = parts.emplace_back(t_);
                sinks.emplace_back([&part, &seen, &watch, first = i == 0](std::span<const EventHead> heads) {
                    for (const EventHead& h : heads) part.learn(h);
                    const std::uint64_t now = seen += heads.size();
                    if (first && watch.count && now / kCountEvery != (now - heads.size()) / kCountEvery) watch.count(now);
                });
            }
            return sinks;
        }};
        read_trace_dat_heads(path, options, t_, learn, &Attributor::learnt_slot);
        if (watch.count) watch.count(seen);
        for (std::size_t i = 1; i < parts.size(); ++i) parts[0].append(parts[i]);
        attributor_ = parts.empty() ? std::make_unique<Attributor>(t_) : std::make_unique<Attributor>(std::move(parts[0]));
    }
    attributor_->finish(t_);
}

TraceStream::~TraceStream() = default;

void TraceStream::each_event(const EventSink& on_event) {
    each_batch([&](std::span<const Event> batch) {
        for (const Event& e : batch) on_event(e);
    });
}

void TraceStream::each_batch(const BatchSink& on_batch) {
    if (!dat_) {
        t_.events.for_each_chunk(0, t_.events.size(), on_batch);
        return;
    }
    // The same records again, in the same order with the same numbers, decoded on a
    // thread of their own while this one stamps their owners and consumes them: the
    // decoding thread is the slower stage of `check` (bench_check_stages), the consumer
    // had time to spare. The header probe already ran (no fork once threads exist).
    EventPipe pipe;
    std::thread decoder([&] {
        try {
            Trace again;
            LoadOptions o = options_;
            o.headers_checked = true;
            EventPipe::Batch batch = pipe.take_empty();
            const EventBatches into{&batch, EventPipe::kBatch, [&] {
                                        pipe.push(std::move(batch));
                                        batch = pipe.take_empty();
                                    }};
            read_trace_dat_into(path_, o, again, into);
            if (!batch.empty()) pipe.push(std::move(batch));
            pipe.close();
        } catch (const EventPipe::Cancelled&) {
            pipe.close();
        } catch (...) {
            pipe.close(std::current_exception());
        }
    });
    try {
        EventPipe::Batch batch;
        while (pipe.pop(batch)) {
            for (Event& e : batch) std::tie(e.vm, e.vcpu) = attributor_->owner(e);
            on_batch(batch);
        }
    } catch (...) {
        pipe.cancel();
        decoder.join();
        throw;
    }
    decoder.join();
}

}  // namespace irqflow
