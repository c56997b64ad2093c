// irqflow push: sessions from one store to another — typically a host's SQLite file to
// the fleet's PostgreSQL server (storage/README.md, "PostgreSQL"). A session goes by
// its events, serial lines and metadata, and is replayed on the way with the semantics
// it was imported with, so the target derives its tables as an import would. Sessions
// the target holds already (same source sha256) are skipped: pushing again is safe.
#include <iostream>
#include <set>

#include "args.hpp"
#include "irqflow/storage/session_writer.hpp"
#include "irqflow/storage/store.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {
namespace {

using storage::Store;

struct PushOptions {
    std::string from, to;
    std::vector<std::string> sessions;  // none: all
};

// The metadata stored with session `id` beyond what loading returns.
storage::SessionMeta stored_meta(Store& s, const storage::StoredSession& stored) {
    storage::SessionMeta m(stored.trace.meta);
    m.host_name = stored.info.host_name;
    m.guest_kernel = stored.info.guest_kernel;
    const std::string id = std::to_string(stored.info.id);
    const auto q = s.query("SELECT qemu_cmdline FROM sessions WHERE id = " + id);
    if (!q.rows.empty() && q.rows[0][0]) m.qemu_cmdline = *q.rows[0][0];
    for (const auto& r : s.query("SELECT key, value FROM session_tags WHERE session = " + id + " ORDER BY key").rows)
        m.tags.emplace_back(r[0].value_or(""), r[1].value_or(""));
    return m;
}

int push(const PushOptions& a) {
    const auto from = storage::open_store(a.from, Store::Mode::ReadOnly);
    const auto to = storage::open_store(a.to, Store::Mode::ReadWrite);
    const auto all = from->sessions();
    std::vector<storage::SessionInfo> chosen;
    for (const auto& want : a.sessions) {  // named ones must exist, in the order named
        bool found = false;
        for (const auto& s : all)
            if (s.name == want || std::to_string(s.id) == want) {
                chosen.push_back(s);
                found = true;
                break;
            }
        if (!found) throw storage::StorageError(from->where() + ": no session \"" + want + "\" (irqflow sessions --db " + a.from + " lists them)");
    }
    if (a.sessions.empty()) chosen = all;
    std::size_t pushed = 0, skipped = 0;
    for (const auto& s : chosen) {
        if (const auto there = to->session_with_source(s.sha256)) {
            std::cout << "skipped session " << s.id << " \"" << s.name << "\": " << to->where() << " has it as session " << there->id << " \"" << there->name
                      << "\"\n";
            ++skipped;
            continue;
        }
        const auto run = pipeline::replay_stored(*from, std::to_string(s.id));
        const auto& stored = run.stored;
        const auto& r = run.result;
        const auto meta = stored_meta(*from, stored);
        try {
            const auto id = to->import_session(s.name, stored.trace, s.sha256, r, stored.serial.lines.empty() ? nullptr : &stored.serial, {},
                                               storage::NameClash::Suffix, &meta, stored.guest ? &*stored.guest : nullptr);
            std::cout << "pushed session " << s.id << " \"" << s.name << "\" (" << stored.trace.records() << " events) as session " << id << "\n";
            ++pushed;
        } catch (const storage::StorageError&) {
            // another host pushed the same trace meanwhile: the database refused the copy
            if (const auto there = to->session_with_source(s.sha256)) {
                std::cout << "skipped session " << s.id << " \"" << s.name << "\": " << to->where() << " has it as session " << there->id << " \""
                          << there->name << "\"\n";
                ++skipped;
                continue;
            }
            throw;
        }
    }
    std::cout << pushed << " pushed, " << skipped << " already there, into " << to->where() << "\n";
    return kExitOk;
}

}  // namespace

void add_push(CLI::App& app, Commands& out) {
    auto a = std::make_shared<PushOptions>();
    auto* c = app.add_subcommand("push", "copy stored sessions to another database, e.g. a host's file to the fleet's PostgreSQL server; "
                                         "sessions already there are skipped");
    add_db(*c, a->from, true)->description("where the sessions are: an SQLite file, or a PostgreSQL server");
    c->add_option("--to", a->to, "where they go: a PostgreSQL server postgresql://[USER@]HOST[:PORT]/DB (password from PGPASSWORD or ~/.pgpass), "
                                 "or an SQLite file")
        ->type_name("URI|FILE")
        ->required();
    c->add_option("SESSION", a->sessions, "only these sessions (ids or names; default: all)");
    c->footer(examples({"irqflow push --db sessions.db --to postgresql://irqflow@fleet-db/irqflow",
                        "irqflow push --db sessions.db --to postgresql://irqflow@fleet-db/irqflow pveoi-on 4"}));
    out.emplace_back(c, [a] { return push(*a); });
}

}  // namespace irqflow::cli
