// Import a trace: replay it and store the session, the file hashed meanwhile.
#include "irqflow/storage/session_writer.hpp"
#include "irqflow/storage/sha256.hpp"
#include "pipeline.hpp"

namespace irqflow::pipeline {

TraceImport::TraceImport(ImportRequest request) : request_(std::move(request)) {
    request_.replay.collect_details = true;
    // Parse a trace.dat's headers in a child before any thread exists (LoadOptions).
    check_trace_headers(request_.source.trace);
    request_.source.load.headers_checked = true;
    // A streamed import hashes the file while its events stream: its first pass takes
    // both cores, the stream leaves one partly idle (storage/README.md, "Import"). One
    // that loads the whole trace first hashes it meanwhile.
    if (!streamed()) start_hashing();
}

TraceImport::~TraceImport() {
    stop_hashing_ = true;  // (after into() returned the hash was taken; else it is of no use)
    if (hasher_.joinable()) hasher_.join();
}

bool TraceImport::streamed() const { return request_.source.serial.empty() && request_.source.guest.empty(); }

void TraceImport::start_hashing() {
    hasher_ = std::thread([this] {
        try {
            sha_ = storage::sha256_file(request_.source.trace, &stop_hashing_);
        } catch (...) {
            sha_error_ = std::current_exception();
        }
        hash_done_.store(true, std::memory_order_release);
    });
}

std::string TraceImport::hashed() {
    if (hasher_.joinable()) hasher_.join();
    if (sha_error_) std::rethrow_exception(sha_error_);
    return sha_;
}

Imported TraceImport::into(storage::Store& store, Steps& steps) {
    const ImportRequest& q = request_;
    auto progress = [&steps](const storage::ImportProgress& p) { steps.progress(p.done, p.total); };
    Imported out;
    out.name = q.name;
    if (!streamed()) {  // aligning a serial log or a guest trace needs the whole trace (capture/README.md, "Streaming")
        steps.begin("loading and replaying " + q.shown);
        Checked c = check(q.source, q.replay);
        c.trace.meta.source = q.shown;
        steps.end();
        steps.begin("storing");
        const auto meta = q.meta(c.trace.meta, c.serial ? &*c.serial : nullptr);
        std::optional<storage::GuestSide> guest;
        if (c.guest) guest = storage::GuestSide{q.guest_shown, std::move(*c.guest), c.guest_clock};
        out.id = store.import_session(q.name, c.trace, hashed(), c.result, c.serial ? &*c.serial : nullptr, progress, q.clash, &meta,
                                      guest ? &*guest : nullptr);
        steps.end();
        for (const auto& s : store.sessions())
            if (s.id == out.id) out.name = s.name;
        out.records = c.trace.records();
        out.findings = c.result.findings.size();
        return out;
    }
    // streamed: events go to the database as they are decoded, never held
    steps.begin("reading " + q.shown + " (vCPUs, lost events)");
    std::uint64_t seen = 0;
    std::optional<storage::SessionWriter> w;
    Watch watch;
    watch.first_pass.count = [&](std::uint64_t n) {
        seen = n;
        steps.progress(seen, 0);
    };
    watch.known = [&](const Trace& t) {
        steps.end();
        steps.begin("replaying and storing");
        TraceMeta meta = t.meta;
        meta.source = q.shown;  // a pipe's temporary file means nothing later
        w.emplace(store, q.name, q.meta(meta, nullptr), std::string(), progress, seen, q.clash);
        out.name = w->session_name();
        start_hashing();  // (a session the store refuses, by its name, is refused without it)
    };
    // The source's hash goes to the writer as soon as it is ready (looked at every
    // kHashPoll events): a trace stored already is refused then, not at the end.
    constexpr std::uint64_t kHashPoll = 65536;
    std::uint64_t added = 0;
    bool sourced = false;
    watch.event = [&](const Event& e) {
        w->add(e);
        if (!sourced && ++added % kHashPoll == 0 && hash_done_.load(std::memory_order_acquire)) {
            w->source_hashed(hashed());
            sourced = true;
        }
    };
    const Checked c = check(q.source, q.replay, Hold::AsNeeded, watch);
    if (!sourced) w->source_hashed(hashed());
    out.records = w->records();
    steps.progress(out.records, seen);
    steps.end();
    steps.begin("committing (replay results, interrupts, IPIs)", false);
    out.id = w->finish(c.trace, c.result, nullptr);
    steps.end();
    out.findings = c.result.findings.size();
    return out;
}

}  // namespace irqflow::pipeline
