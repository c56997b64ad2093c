#include "session.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/storage/database.hpp"
#include "guest_spans.hpp"
#include "pipeline.hpp"

namespace irqflow::gui {

bool is_database(const std::string& path) { return storage::is_postgres_uri(path) || storage::is_database_file(path); }

std::vector<StoredSessionEntry> list_sessions(const std::string& db_path) {
    const auto db = storage::open_store(db_path, storage::Store::Mode::ReadOnly);
    std::vector<StoredSessionEntry> out;
    for (const auto& i : db->sessions()) out.push_back({std::to_string(i.id), i.name, i.source, i.events, i.findings});
    return out;
}

namespace {

// The session named, or the database's only one.
void read_stored(const SessionSource& src, Session& s, LoadProgress& progress) {
    const auto store = storage::open_store(src.path, storage::Store::Mode::ReadOnly);
    storage::Store& db = *store;
    std::string which = src.db_session;
    if (which.empty()) {
        const auto all = db.sessions();
        if (all.size() != 1) {
            std::string list;
            for (const auto& i : all) list += "\n  " + std::to_string(i.id) + "  " + i.name;
            throw storage::StorageError(db.where() + ": holds " + std::to_string(all.size()) +
                                        " sessions; name one after the file (irqflow-gui DB SESSION):" + list);
        }
        which = std::to_string(all.front().id);
    }
    db.verify();  // a damaged file is refused by name, not drawn from whatever rows still read
    // The events come in order: they feed the overview as a trace file's first pass does.
    pipeline::StoredWatch watch;
    watch.progress = [&](const storage::ImportProgress& p) {
        if (p.total) progress.fraction = static_cast<float>(p.done) / static_cast<float>(p.total);
    };
    watch.event = [&progress](const Event& e) { progress.overview.add(e); };
    watch.read = [&] {
        progress.overview.finish();
        progress.stage = 3;  // all read (there is no second pass and no serial log to align): the replay is next
        while (progress.hold_after_overview && !progress.resume) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        progress.fraction = 0;
    };
    auto run = pipeline::replay_stored(db, which, watch);
    s.title = db.where() + " [" + run.stored.info.name + "]";
    s.trace = std::move(run.stored.trace);
    if (!run.stored.serial.lines.empty()) s.serial = std::move(run.stored.serial);
    if (run.stored.guest) {
        s.guest = std::move(run.stored.guest->trace);
        s.guest_vm = run.stored.guest->clock.vm;
    }
    s.replay = std::move(run.result);
}

}  // namespace

std::unique_ptr<Session> load_session(const SessionSource& src, LoadProgress& progress) {
    auto s = std::make_unique<Session>();
    progress.stage = 0;
    if (is_database(src.path)) {
        if (!src.serial.empty())
            throw storage::StorageError(storage::redacted_uri(src.path) + ": a stored session carries its own serial lines; --serial is for trace files");
        if (!src.guest.empty())
            throw storage::StorageError(storage::redacted_uri(src.path) + ": a stored session carries its own guest trace; --guest is for trace files");
        read_stored(src, *s, progress);
    } else {
        if (!src.db_session.empty())
            throw InputError(src.path, {InputPosition::Unit::Byte, 0}, "not an irqflow database, so it has no session \"" + src.db_session + "\"");
        s->title = src.path;
        pipeline::Source source{src.path, src.serial, {}, src.guest};
        source.load.headers_checked = src.headers_checked;
        // Streamed in two passes (capture/README.md, "Streaming"): the first feeds the
        // overview the window shows at once, the second the events, attributed, into the
        // session's store.
        const EventSink overview = [&progress](const Event& e) { progress.overview.add(e); };
        pipeline::Watch watch;
        watch.first_pass.events = &overview;
        watch.known = [&](const Trace&) {
            progress.overview.finish();
            progress.stage = 1;
            while (progress.hold_after_overview && !progress.resume) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        };
        watch.entered = [&progress](pipeline::Stage stage) { progress.stage = stage == pipeline::Stage::Replay ? 3 : 2; };
        replay::ReplayOptions ro;
        ro.collect_details = true;
        auto c = pipeline::check(source, ro, pipeline::Hold::Whole, watch);
        s->trace = std::move(c.trace);
        s->serial = std::move(c.serial);
        s->guest = std::move(c.guest);
        s->guest_vm = c.guest_clock.vm;
        s->replay = std::move(c.result);
    }
    progress.stage = 4;
    s->tl = build_timeline(s->trace, s->replay, s->serial ? &*s->serial : nullptr);
    if (s->guest) add_guest_spans(s->tl, *s->guest, s->guest_vm);
    progress.stage = 5;
    s->index = std::make_unique<StateIndex>(s->trace);
    progress.stage = kLoadDone;
    return s;
}

}  // namespace irqflow::gui
