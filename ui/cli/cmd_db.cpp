// irqflow import / sessions / query / rm: the SQLite side of the CLI.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "args.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/database.hpp"
#include "json.hpp"
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
    replay::ReplayOptions o;
    o.collect_details = true;
    if (sem) o.semantics = semantics_option(*sem);
    const auto t0 = std::chrono::steady_clock::now();
    Trace t = load_trace(pos[0]);
    std::optional<SerialLog> serial;
    if (serial_path) {
        serial = read_serial_log(*serial_path);
        align_serial(t, *serial);
    }
    const std::string sha = storage::sha256_file(pos[0]);
    const auto r = replay::replay(t, o);
    Database d(db, Database::Mode::ReadWrite);
    // Progress only for imports that take a while (over a second so far).
    bool shown = false;
    auto progress = [&](const storage::ImportProgress& p) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < 1.0 && !shown) return;
        shown = true;
        std::fprintf(stderr, "\rirqflow import: %llu/%llu events (%.0f events/s)", static_cast<unsigned long long>(p.done),
                     static_cast<unsigned long long>(p.total), static_cast<double>(p.done) / s);
        if (p.done == p.total) std::fprintf(stderr, "\n");
    };
    const std::string session_name = name ? *name : std::filesystem::path(pos[0]).filename().string();
    const auto id = d.import_session(session_name, t, sha, r, serial ? &*serial : nullptr, progress);
    std::cout << "imported session " << id << " (" << t.records() << " events, " << r.findings.size() << " findings) into " << db << "\n";
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
    auto pos = a.positionals();
    if (pos.size() != 1) throw UsageError("expects one SQL statement");
    Database d(db, Database::Mode::ReadOnly);
    storage::QueryResult r;
    try {
        r = d.query(pos[0]);
    } catch (const storage::StorageError& e) {
        throw storage::StorageError(db + ": " + e.what());
    }
    std::ostream& o = std::cout;
    if (json) {
        o << '[';
        for (std::size_t i = 0; i < r.rows.size(); ++i) {
            if (i) o << ',';
            JsonObject j(o);
            for (std::size_t c = 0; c < r.columns.size(); ++c) {
                const auto& v = r.rows[i][c];
                if (v) json_string(j.key(r.columns[c]), *v);
                else j.key(r.columns[c]) << "null";
            }
        }
        o << "]\n";
        return kExitOk;
    }
    const char* sep = csv ? "," : "\t";
    for (std::size_t c = 0; c < r.columns.size(); ++c) {
        if (c) o << sep;
        if (csv) csv_cell(o, r.columns[c]);
        else o << r.columns[c];
    }
    o << '\n';
    for (const auto& row : r.rows) {
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (c) o << sep;
            const std::string v = row[c] ? *row[c] : (csv ? "" : "NULL");
            if (csv) csv_cell(o, v);
            else o << v;
        }
        o << '\n';
    }
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
