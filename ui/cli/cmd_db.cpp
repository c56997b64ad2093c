// irqflow import / sessions / query / rm: stored sessions, in an SQLite file or a
// PostgreSQL server (storage/README.md, "Backends").
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include "args.hpp"
#include "irqflow/storage/database.hpp"
#include "json.hpp"
#include "pipeline.hpp"

namespace irqflow::cli {
namespace {

using storage::Database;
using storage::Store;

// `query`'s default bounds: a statement runs at most 30 s and SQLite's heap for it stays
// under 1 GiB unless the user says otherwise (--timeout 0, --memory 0: none).
constexpr double kQueryTimeoutS = 30;
constexpr std::uint64_t kQueryMemoryMiB = 1024;

Json json_cell(const std::optional<std::string>& v, storage::CellType t) {
    using storage::CellType;
    if (!v || t == CellType::Null) return nullptr;
    switch (t) {
    case CellType::Integer: return std::stoll(*v);  // SQLite's text of an integer is exact
    case CellType::Real: return std::strtod(v->c_str(), nullptr);
    case CellType::Blob: {  // as hex text: JSON has no bytes
        static const char* digits = "0123456789abcdef";
        std::string hex;
        for (unsigned char b : *v) (hex += digits[b >> 4]) += digits[b & 15];
        return hex;
    }
    default: return *v;
    }
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

// Import progress on stderr. On a terminal one line, rewritten in place, per long step
// (reading, replaying and storing, committing); otherwise, so that logs do not fill with
// carriage returns, one line when such a step ends. Steps under a second say nothing.
class Steps : public pipeline::Steps {
public:
    using Clock = std::chrono::steady_clock;
    Steps() : tty_(isatty(STDERR_FILENO) == 1) {}
    ~Steps() {
        if (shown_) std::fputc('\n', stderr);  // an error follows on its own line
    }
    // `counts`: the step goes through events and says how many.
    void begin(std::string what, bool counts = true) override {
        what_ = std::move(what);
        start_ = Clock::now();
        done_ = 0;
        counts_ = counts;
    }
    void progress(std::uint64_t done, std::uint64_t total) override {
        if (!counts_) return;
        done_ = done;
        const double s = seconds();
        if (!tty_ || s < 1.0) return;
        if (total) std::fprintf(stderr, "\rirqflow import: %s: %llu/%llu events (%.0f events/s)   ", what_.c_str(),
                                static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), static_cast<double>(done) / s);
        else std::fprintf(stderr, "\rirqflow import: %s: %llu events (%.0f events/s)   ", what_.c_str(),
                          static_cast<unsigned long long>(done), static_cast<double>(done) / s);
        shown_ = true;
    }
    void end() override {
        const double s = seconds();
        if (shown_) std::fputc('\r', stderr);
        if (s >= 1.0) {
            std::fprintf(stderr, "irqflow import: %s: ", what_.c_str());
            if (done_) std::fprintf(stderr, "%llu events in %.1f s (%.0f events/s)", static_cast<unsigned long long>(done_), s,
                                    static_cast<double>(done_) / s);
            else std::fprintf(stderr, "%.1f s", s);
            std::fprintf(stderr, shown_ ? "              \n" : "\n");
        }
        shown_ = false;
    }

private:
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
    bool tty_;
    bool shown_ = false, counts_ = true;
    std::string what_;
    Clock::time_point start_;
    std::uint64_t done_ = 0;
};

struct ImportOptions {
    std::string trace, db, name, serial, guest;
    replay::ReplayOptions replay;
    std::string host, guest_kernel, qemu_cmdline;
    std::vector<std::string> tags;  // key=value
};

// --tag key=value, each key once.
std::vector<std::pair<std::string, std::string>> parse_tags(const std::vector<std::string>& given) {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < given.size(); ++i) {
        const auto eq = given[i].find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--tag " + given[i] + " (tag " + std::to_string(i + 1) + "): expected KEY=VALUE, e.g. --tag ci=nightly");
        std::string key = given[i].substr(0, eq);
        for (const auto& [k, v] : out)
            if (k == key) throw UsageError("--tag " + given[i] + " (tag " + std::to_string(i + 1) + "): key \"" + key + "\" given twice");
        out.emplace_back(std::move(key), given[i].substr(eq + 1));
    }
    return out;
}

// The guest's kernel release from its console's banner ("Linux version 6.1.0-13-amd64 (…").
std::string guest_kernel_from(const SerialLog& serial) {
    static const std::string banner = "Linux version ";
    for (const auto& l : serial.lines)
        if (const auto at = l.text.find(banner); at != std::string::npos) {
            const auto from = at + banner.size();
            return l.text.substr(from, l.text.find(' ', from) - from);
        }
    return {};
}

storage::SessionMeta session_meta(const ImportOptions& a, const TraceMeta& trace, const SerialLog* serial) {
    storage::SessionMeta m(trace);
    if (!a.host.empty()) m.host_name = a.host;
    m.guest_kernel = !a.guest_kernel.empty() ? a.guest_kernel : serial ? guest_kernel_from(*serial) : std::string();
    m.qemu_cmdline = a.qemu_cmdline;
    m.tags = parse_tags(a.tags);
    return m;
}

int import(const ImportOptions& a) {
    const std::string& db = a.db;
    pipeline::ImportRequest q;
    q.source = {readable_trace(a.trace), a.serial, {}, a.guest.empty() ? std::string() : readable_trace(a.guest)};
    q.shown = shown_name(q.source.trace);
    q.guest_shown = a.guest;
    // by default the file's name as given ("-": stdin), never the temporary copy of a pipe
    q.name = !a.name.empty() ? a.name : a.trace == "-" ? "stdin" : std::filesystem::path(a.trace).filename().string();
    // A name the user chose is theirs: taken, it is an error; the file's name gets -2, -3…
    q.clash = a.name.empty() ? storage::NameClash::Suffix : storage::NameClash::Refuse;
    q.replay = a.replay;
    q.meta = [&a](const TraceMeta& trace, const SerialLog* serial) { return session_meta(a, trace, serial); };
    pipeline::TraceImport importing(std::move(q));
    parse_tags(a.tags);  // a bad tag is a usage error before any work
    // Another import holding the write lock: wait for it, saying who it is.
    const auto store = storage::open_store(db, Store::Mode::ReadWrite, [&db](const storage::LockWait& w) {
        std::fprintf(stderr, "irqflow import: %s is being written by %s; waiting (%.0f s)\n", db.c_str(),
                     w.holder.empty() ? "another connection" : w.holder.c_str(), w.waited_s);
    });
    Steps steps;
    const auto r = importing.into(*store, steps);
    std::cout << "imported session " << r.id << " (" << r.records << " events, " << r.findings << " findings) into " << store->where() << "\n";
    if (r.name != importing.name())
        std::cerr << "irqflow import: named it \"" << r.name << "\": a session is already named \"" << importing.name() << "\"\n";
    return kExitOk;
}

int sessions(const std::string& db, bool json) {
    // read-write so an older file gets migrated; a server is only read (a role with
    // SELECT alone lists sessions too)
    const auto d = storage::open_store(db, storage::is_postgres_uri(db) ? Store::Mode::ReadOnly : Store::Mode::ReadWrite);
    const auto list = d->sessions();
    if (json) {
        Json all = Json::array();
        for (const auto& s : list)
            all.push_back({{"id", s.id},
                           {"name", s.name},
                           {"source", s.source},
                           {"sha256", s.sha256},
                           {"format", s.format},
                           {"kernel", s.kernel},
                           {"semantics", s.semantics},
                           {"imported_at", s.imported_at},
                           {"host_name", s.host_name},
                           {"guest_kernel", s.guest_kernel},
                           {"events", s.events},
                           {"findings", s.findings}});
        std::cout << json_text(all) << '\n';
        return kExitOk;
    }
    std::printf("%4s  %-28s %10s %8s  %-20s  %-16s %s\n", "id", "name", "events", "findings", "imported", "host", "source");
    for (const auto& s : list)
        std::printf("%4lld  %-28s %10lld %8lld  %-20s  %-16s %s\n", static_cast<long long>(s.id), s.name.c_str(), static_cast<long long>(s.events),
                    static_cast<long long>(s.findings), s.imported_at.c_str(), s.host_name.empty() ? "-" : s.host_name.c_str(), s.source.c_str());
    return kExitOk;
}

struct QueryOptions {
    std::string db, sql;
    bool csv = false, json = false;
    storage::QueryLimits limits;
};

int query(const QueryOptions& a) {
    const std::string& db = a.db;
    const bool csv = a.csv, json = a.json;
    const storage::QueryLimits& limits = a.limits;
    const auto d = storage::open_store(db, Store::Mode::ReadOnly);
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
    auto row = [&](const storage::QueryRow& r, const storage::QueryTypes& types) {
        if (json) {  // typed as SQLite stored each value, like sqlite3 -json
            if (rows++) o << ',';
            Json j = Json::object();
            for (std::size_t c = 0; c < columns.size(); ++c) j[columns[c]] = json_cell(r[c], types[c]);
            o << json_text(j);
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
        d->query(a.sql, header, row, limits);
    } catch (const storage::StorageError& e) {
        if (json && !columns.empty()) o << "]\n" << std::flush;  // what was printed stays valid JSON
        throw storage::StorageError(d->where() + ": " + e.what());
    }
    if (json) o << "]\n";
    return kExitOk;
}

int rm(const std::string& db, const std::string& session) {
    const auto store = storage::open_store(db, Store::Mode::ReadWrite);
    if (!store->remove_session(session)) throw storage::StorageError(store->where() + ": no session \"" + session + "\"");
    std::cout << "removed session " << session << "\n";
    // A file mostly empty now gives the space back (a rewrite of what remains); else the
    // free pages wait for the next import, which is cheaper than rewriting a big file.
    // (A server's partitions were dropped: their space is back already.)
    if (auto* file = dynamic_cast<Database*>(store.get())) {
        const auto before = file->file_bytes();
        if (file->shrink_if_mostly_free())
            std::cout << db << ": " << before / 1000000 << " MB -> " << file->file_bytes() / 1000000 << " MB\n";
    }
    return kExitOk;
}

}  // namespace

void add_import(CLI::App& app, Commands& out) {
    auto a = std::make_shared<ImportOptions>();
    auto* c = app.add_subcommand("import", "store a capture as a session (events and replay results) in an SQLite file or a PostgreSQL server");
    add_trace(*c, a->trace);
    add_db(*c, a->db, false)->description("the SQLite file of stored sessions (created if missing), or a PostgreSQL server: "
                                          "postgresql://[USER@]HOST[:PORT]/DB (password from PGPASSWORD or ~/.pgpass)");
    c->add_option("--name", a->name, "the session's name (default: the file's name; a taken name is refused)")->type_name("NAME");
    add_serial(*c, a->serial);
    add_guest(*c, a->guest)->description("the guest's own trace of the same run (irq_vectors, irq_handler_*): stored beside the host's, "
                                         "its handlers matched to the host's deliveries (SQL: guest_events, delivery_latency)");
    add_semantics(*c, a->replay.semantics);
    c->add_option("--host", a->host, "the host the trace was recorded on (default: the trace's, trace.dat records it)")->type_name("NAME");
    c->add_option("--guest-kernel", a->guest_kernel, "the guest's kernel release (default: from the --serial log's banner)")->type_name("RELEASE");
    c->add_option("--qemu-cmdline", a->qemu_cmdline, "QEMU's command line for this VM")->type_name("TEXT");
    c->add_option("--tag", a->tags, "a label to group sessions by, repeatable (SQL: session_tags)")->type_name("KEY=VALUE");
    c->footer(examples({"irqflow import samples/pveoi-on.dat --db sessions.db --name pveoi-on",
                        "irqflow import trace.dat --db postgresql://irqflow@fleet-db/irqflow --tag ci=nightly --tag tree=kvm-next",
                        "irqflow query --db sessions.db \"SELECT * FROM exits_per_reason WHERE session = 1\""}));
    out.emplace_back(c, [a] { return import(*a); });
}

void add_sessions(CLI::App& app, Commands& out) {
    struct Options {
        std::string db;
        bool json = false;
    };
    auto a = std::make_shared<Options>();
    auto* c = app.add_subcommand("sessions", "list the sessions stored in an SQLite file or a PostgreSQL server");
    add_db(*c, a->db, true);
    c->add_flag("--json", a->json, "a JSON array");
    c->footer(examples({"irqflow sessions --db sessions.db"}));
    out.emplace_back(c, [a] { return sessions(a->db, a->json); });
}

void add_query(CLI::App& app, Commands& out) {
    auto a = std::make_shared<QueryOptions>();
    auto* c = app.add_subcommand("query", "run one read-only SQL statement; rows are printed as the database produces them");
    add_db(*c, a->db, true);
    c->add_option("SQL", a->sql, "one SELECT (or WITH, or a read-only PRAGMA); tables and views: storage/SCHEMA.md")->required();
    auto* csv = c->add_flag("--csv", a->csv, "comma-separated, quoted where needed");
    c->add_flag("--json", a->json, "a JSON array of objects")->excludes(csv);
    c->add_option("--limit", a->limits.max_rows, "stop after this many rows")->type_name("ROWS")->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000'000'000'000'000}));
    // a statement that never ends (a recursive CTE without a bound) must not run until
    // someone kills it, nor take the machine's memory: both have a default bound
    a->limits.timeout_s = kQueryTimeoutS;
    c->add_option("--timeout", a->limits.timeout_s, "give up after this many seconds (0: never)")
        ->type_name("SECONDS")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    c->add_option_function<std::uint64_t>(
           "--memory", [a](std::uint64_t mib) { a->limits.max_memory = mib << 20; },
           "give up when the statement needs more than this much memory, in MiB (0: no bound; SQLite: its heap; PostgreSQL bounds "
           "a statement's memory on the server)")
        ->type_name("MiB")
        ->default_str(std::to_string(kQueryMemoryMiB))
        ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 40));
    a->limits.max_memory = kQueryMemoryMiB << 20;
    c->footer(examples({"irqflow query --db s.db \"SELECT reason_name, exits FROM exits_per_reason WHERE session = 1\" --csv",
                        "irqflow query --db s.db \"SELECT reason_name, exits FROM exits_per_reason_all WHERE session = 1 ORDER BY exits DESC\"",
                        "irqflow query --db s.db \"SELECT * FROM findings\" --json --limit 10"}));
    out.emplace_back(c, [a] { return query(*a); });
}

void add_rm(CLI::App& app, Commands& out) {
    struct Options {
        std::string db, session;
    };
    auto a = std::make_shared<Options>();
    auto* c = app.add_subcommand("rm", "remove a stored session");
    add_db(*c, a->db, true);
    c->add_option("SESSION", a->session, "the session's id or name")->required();
    c->footer(examples({"irqflow rm --db sessions.db 3", "irqflow rm --db sessions.db pveoi-on"}));
    out.emplace_back(c, [a] { return rm(a->db, a->session); });
}

}  // namespace irqflow::cli
