// One session into any backend, in one transaction: every event as it arrives, then
// what the replay derived from them (session_rows.cpp).
#include "irqflow/storage/session_writer.hpp"

#include "exit_times.hpp"
#include "session_rows.hpp"
#include "session_sink.hpp"

namespace irqflow::storage {

struct SessionWriter::Impl {
    Impl(Store& s, const std::string& name, const SessionMeta& m, const std::string& sha256, std::function<void(const ImportProgress&)> report,
         std::uint64_t expected, NameClash clash)
        : meta(m), sink(s.begin_session(name, m, sha256, clash)), exit_times(sink->events()), on_progress(std::move(report)),
          progress{0, expected} {}

    void add(const Event& e) {
        if (!any) first_ts = e.ts.value();
        any = true;
        last_ts = e.ts.value();
        records += e.kind != EventKind::Lost;
        if (e.kind == EventKind::Exit) {
            exit_times.exit(e);
        } else {
            if (e.kind == EventKind::Entry) exit_times.entry(e);
            sink->events().insert(Row{e, std::nullopt, std::nullopt});
        }
        if (++progress.done % 65536 == 0 && on_progress) on_progress(progress);
    }

    std::int64_t finish(const Trace& t, const replay::ReplayResult& r, const SerialLog* serial, const GuestSide* guest) {
        exit_times.finish();
        sink->end_events();
        write_session_rows(sink->tables(), sink->id(), t, meta, exit_times, r, serial, guest);
        sink->commit(first_ts, last_ts, records, replay::to_string(r.semantics));
        if (on_progress) on_progress(progress);
        return sink->id();
    }

    SessionMeta meta;
    std::unique_ptr<SessionSink> sink;  // rolls back when destroyed uncommitted
    ExitTimes exit_times;
    std::function<void(const ImportProgress&)> on_progress;
    ImportProgress progress;
    bool any = false;
    std::int64_t first_ts = 0, last_ts = 0;
    std::uint64_t records = 0;
};

SessionWriter::SessionWriter(Store& db, const std::string& name, const SessionMeta& meta, const std::string& sha256,
                             std::function<void(const ImportProgress&)> progress, std::uint64_t expected_events, NameClash clash)
    : impl_(std::make_unique<Impl>(db, name, meta, sha256, std::move(progress), expected_events, clash)) {}
SessionWriter::~SessionWriter() = default;
void SessionWriter::source_hashed(const std::string& sha256) { impl_->sink->source(sha256); }
void SessionWriter::add(const Event& e) { impl_->add(e); }
std::int64_t SessionWriter::finish(const Trace& trace, const replay::ReplayResult& replay, const SerialLog* serial, const GuestSide* guest) {
    return impl_->finish(trace, replay, serial, guest);
}
std::int64_t SessionWriter::session_id() const { return impl_->sink->id(); }
const std::string& SessionWriter::session_name() const { return impl_->sink->name(); }
std::uint64_t SessionWriter::records() const { return impl_->records; }

std::int64_t Store::import_session(const std::string& name, const Trace& trace, const std::string& sha256, const replay::ReplayResult& replay,
                                   const SerialLog* serial, const std::function<void(const ImportProgress&)>& progress, NameClash clash,
                                   const SessionMeta* meta, const GuestSide* guest) {
    SessionWriter w(*this, name, meta ? *meta : SessionMeta(trace.meta), sha256, progress, trace.events.size(), clash);
    trace.events.for_each([&w](const Event& e) { w.add(e); });
    return w.finish(trace, replay, serial, guest);
}

}  // namespace irqflow::storage
