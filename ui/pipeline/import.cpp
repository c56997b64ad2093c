// Import a trace: replay it and store the session, the file hashed meanwhile.
#include "irqflow/storage/session_writer.hpp"
#include "irqflow/storage/sha256.hpp"
#include "pipeline.hpp"

namespace irqflow::pipeline {

TraceImport::TraceImport(ImportRequest request) : request_(std::move(request)) {
    request_.replay.collect_details = true;
    // Parse a trace.dat's headers in a child before any thread exists (LoadOptions), then
    // hash the file on a thread of its own while the stream's first pass reads it.
    check_trace_headers(request_.source.trace);
    request_.source.load.headers_checked = true;
    hasher_ = std::thread([this] {
        try {
            sha_ = storage::sha256_file(request_.source.trace);
        } catch (...) {
            sha_error_ = std::current_exception();
        }
    });
}

TraceImport::~TraceImport() {
    if (hasher_.joinable()) hasher_.join();
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
    if (!q.source.serial.empty() || !q.source.guest.empty()) {  // aligning either needs the whole trace (capture/README.md, "Streaming")
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
        w.emplace(store, q.name, q.meta(meta, nullptr), hashed(), progress, seen, q.clash);
        out.name = w->session_name();
    };
    watch.event = [&](const Event& e) { w->add(e); };
    const Checked c = check(q.source, q.replay, Hold::AsNeeded, watch);
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
