// irqflow import / sessions / query / rm: the SQLite side of the CLI.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>

#include "args.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/database.hpp"
#include "json.hpp"
#include "irqflow/storage/session_writer.hpp"
#include "irqflow/storage/sha256.hpp"

namespace irqflow::cli {
namespace {

using storage::Database;

std::string need_db(Args& a) {
    auto db = a.value("--db");
    if (!db) throw UsageError("needs --db FILE");
    return *db;
}

void csv_cell(std::ostream& o, const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        o << s;
        return;
    }
    o << '"';
    for (char c : s) o << (c == '"' ? "\"\"" : std::string(1, c));
    o << '"';
}

}  // namespace

int cmd_import(Args& a) {
    const std::string db = need_db(a);
    auto name = a.value("--name");
    auto serial_path = a.value("--serial");
    auto sem = a.value("--semantics");
    auto pos = a.positionals();
    if (pos.size() != 1) throw UsageError("expects one TRACE");
    const std::string& path = pos[0];
    replay::ReplayOptions o;
    o.collect_details = true;
    if (sem) o.semantics = semantics_option(*sem);
    const auto t0 = std::chrono::steady_clock::now();
    // Parse a trace.dat's headers in a child before any thread exists (LoadOptions), then
    // hash the file on a thread of its own while the stream's first pass reads it.
    check_trace_headers(path);
    std::string sha;
    std::exception_ptr sha_error;
    std::thread hasher([&] {
        try {
            sha = storage::sha256_file(path);
        } catch (...) {
            sha_error = std::current_exception();
        }
    });
    struct Join {
        std::thread& t;
        ~Join() {
            if (t.joinable()) t.join();
        }
    } join{hasher};
    auto hashed = [&] {
        hasher.join();
        if (sha_error) std::rethrow_exception(sha_error);
        return sha;
    };
    // Another import holding the write lock: wait for it, saying who it is.
    Database d(db, Database::Mode::ReadWrite, [&db](const storage::LockWait& w) {
        std::fprintf(stderr, "irqflow import: %s is being written by %s; waiting (%.0f s)\n", db.c_str(),
                     w.holder.empty() ? "another connection" : w.holder.c_str(), w.waited_s);
    });
    // Progress only for imports that take a while (over a second so far).
    bool shown = false;
    auto progress = [&](const storage::ImportProgress& p) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < 1.0 && !shown) return;
        shown = true;
        if (p.total) std::fprintf(stderr, "\rirqflow import: %llu/%llu events (%.0f events/s)", static_cast<unsigned long long>(p.done),
                                  static_cast<unsigned long long>(p.total), static_cast<double>(p.done) / s);
        else std::fprintf(stderr, "\rirqflow import: %llu events (%.0f events/s)", static_cast<unsigned long long>(p.done),
                          static_cast<double>(p.done) / s);
    };
    const std::string session_name = name ? *name : std::filesystem::path(path).filename().string();
    LoadOptions lo;
    lo.headers_checked = true;
    std::int64_t id = 0;
    std::uint64_t records = 0;
    std::size_t findings = 0;
    if (serial_path) {  // aligning the serial log needs the whole trace (capture/README.md, "Streaming")
        Trace t = load_trace(path, lo);
        SerialLog serial = read_serial_log(*serial_path);
        align_serial(t, serial);
        const auto r = replay::replay(t, o);
        id = d.import_session(session_name, t, hashed(), r, &serial, progress);
        records = t.records();
        findings = r.findings.size();
    } else {  // streamed: events go to the database as they are decoded, never held
        TraceStream stream(path, lo);
        storage::SessionWriter w(d, session_name, stream.trace().meta, hashed(), progress);
        replay::StreamingReplay replay(stream.trace(), o);
        stream.each_event([&](const Event& e) {
            replay.feed(e);
            w.add(e);
        });
        records = w.records();
        const auto r = replay.finish();
        id = w.finish(stream.trace(), r, nullptr);
        findings = r.findings.size();
    }
    if (shown) std::fprintf(stderr, "\n");
    std::cout << "imported session " << id << " (" << records << " events, " << findings << " findings) into " << db << "\n";
    return kExitOk;
}

int cmd_sessions(Args& a) {
    const std::string db = need_db(a);
    const bool json = a.flag("--json");
    if (!a.positionals().empty()) throw UsageError("takes no arguments");
    Database d(db, Database::Mode::ReadWrite);  // read-write so an older file gets migrated
    const auto list = d.sessions();
    if (json) {
        std::cout << '[';
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto& s = list[i];
            if (i) std::cout << ',';
            JsonObject j(std::cout);
            j.key("id") << s.id;
            json_string(j.key("name"), s.name);
            json_string(j.key("source"), s.source);
            json_string(j.key("sha256"), s.sha256);
            json_string(j.key("format"), s.format);
            json_string(j.key("kernel"), s.kernel);
            json_string(j.key("semantics"), s.semantics);
            json_string(j.key("imported_at"), s.imported_at);
            j.key("events") << s.events;
            j.key("findings") << s.findings;
        }
        std::cout << "]\n";
        return kExitOk;
    }
    std::printf("%4s  %-28s %10s %8s  %-20s  %s\n", "id", "name", "events", "findings", "imported", "source");
    for (const auto& s : list)
        std::printf("%4lld  %-28s %10lld %8lld  %-20s  %s\n", static_cast<long long>(s.id), s.name.c_str(),
                    static_cast<long long>(s.events), static_cast<long long>(s.findings), s.imported_at.c_str(), s.source.c_str());
    return kExitOk;
}

int cmd_query(Args& a) {
    const std::string db = need_db(a);
    const bool csv = a.flag("--csv");
    const bool json = a.flag("--json");
    storage::QueryLimits limits;
    if (auto n = a.number("--limit")) {
        if (!(*n >= 1 && *n <= 1e18) || *n != std::floor(*n)) throw UsageError("--limit takes a whole number of rows (1 or more)");
        limits.max_rows = static_cast<std::uint64_t>(*n);
    }
    if (auto t = a.number("--timeout")) {
        if (!(*t > 0)) throw UsageError("--timeout takes seconds (more than 0)");
        limits.timeout_s = *t;
    }
    auto pos = a.positionals();
    if (pos.size() != 1) throw UsageError("expects one SQL statement");
    Database d(db, Database::Mode::ReadOnly);
    std::ostream& o = std::cout;
    const char* sep = csv ? "," : "\t";
    std::vector<std::string> columns;
    std::uint64_t rows = 0;
    // Rows go out as SQLite steps them: a huge result streams instead of filling memory.
    auto header = [&](const std::vector<std::string>& c) {
        columns = c;
        if (json) {
            o << '[';
            return;
        }
        for (std::size_t i = 0; i < c.size(); ++i) {
            if (i) o << sep;
            if (csv) csv_cell(o, c[i]);
            else o << c[i];
        }
        o << '\n';
    };
    auto row = [&](const storage::QueryRow& r) {
        if (json) {
            if (rows++) o << ',';
            JsonObject j(o);
            for (std::size_t c = 0; c < columns.size(); ++c) {
                if (r[c]) json_string(j.key(columns[c]), *r[c]);
                else j.key(columns[c]) << "null";
            }
            return;
        }
        for (std::size_t c = 0; c < r.size(); ++c) {
            if (c) o << sep;
            const std::string v = r[c] ? *r[c] : (csv ? "" : "NULL");
            if (csv) csv_cell(o, v);
            else o << v;
        }
        o << '\n';
    };
    try {
        d.query(pos[0], header, row, limits);
    } catch (const storage::StorageError& e) {
        if (json && !columns.empty()) o << "]\n" << std::flush;  // what was printed stays valid JSON
        throw storage::StorageError(db + ": " + e.what());
    }
    if (json) o << "]\n";
    return kExitOk;
}

int cmd_rm(Args& a) {
    const std::string db = need_db(a);
    auto pos = a.positionals();
    if (pos.size() != 1) throw UsageError("expects one SESSION (id or name)");
    Database d(db, Database::Mode::ReadWrite);
    if (!d.remove_session(pos[0])) throw storage::StorageError(db + ": no session \"" + pos[0] + "\"");
    std::cout << "removed session " << pos[0] << "\n";
    return kExitOk;
}

}  // namespace irqflow::cli
