#include "pg_store.hpp"

#include <charconv>
#include <cstdio>

#include "../event_tables.hpp"
#include "../guest_rows.hpp"
#include "../session_builder.hpp"
#include "pg_migrations.hpp"
#include "pg_schema.hpp"
#include "pg_views.hpp"

namespace irqflow::storage {
namespace {

std::int64_t to_i64(const std::optional<std::string>& s) {
    std::int64_t v = 0;
    if (s) std::from_chars(s->data(), s->data() + s->size(), v);
    return v;
}

// PostgreSQL's type OIDs (pg_type.dat) as the storage classes `query --json` types by.
CellType cell_type(unsigned oid) {
    switch (oid) {
    case 20: case 21: case 23: case 26: return CellType::Integer;  // int8, int2, int4, oid
    case 700: case 701: case 1700: return CellType::Real;           // float4, float8, numeric
    case 17: return CellType::Blob;                                  // bytea
    default: return CellType::Text;
    }
}

// A reader's transaction: READ ONLY, holding the publish lock shared (pg_store.hpp).
std::string read_only_begin(const std::string& isolation = "") {
    return "BEGIN " + isolation + "READ ONLY; SELECT pg_advisory_xact_lock_shared(" + std::to_string(kPgPublishLock) + ")";
}

}  // namespace

PgStore::PgStore(const std::string& uri, Mode mode) : uri_(uri), c_(uri), readonly_(mode == Mode::ReadOnly) {
    // a reader's every transaction is READ ONLY, whatever its role may do
    if (readonly_) c_.exec("SET default_transaction_read_only = on");
    create_or_check_schema();
    if (!readonly_) drop_abandoned_tables();
}

void PgStore::drop_abandoned_tables() {
    // named as a partition of one of ours (<table>_s<id>), in our schema, attached to nothing
    const auto candidates = c_.query(
        "SELECT c.relname, substring(c.relname FROM '_s([0-9]+)$') FROM pg_class c "
        "WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND c.relkind = 'r' AND NOT c.relispartition "
        "AND c.relname ~ '_s[0-9]+$' AND EXISTS (SELECT 1 FROM pg_class p WHERE p.relnamespace = c.relnamespace AND p.relkind = 'p' "
        "AND p.relname = regexp_replace(c.relname, '_s[0-9]+$', ''))");
    for (const auto& r : candidates.rows) {
        const std::string table = "\"" + r[0].value_or("") + "\"";
        const std::int64_t session = to_i64(r[1]);
        try {
            PgTransaction t(c_, "BEGIN");
            if (c_.query("SELECT pg_try_advisory_xact_lock(" + pg_import_lock(session) + ")").rows.at(0).at(0) != "t") continue;  // its import runs
            // the lock is ours: its import ended, and if it committed, it attached the table
            if (c_.query("SELECT 1 FROM pg_class WHERE oid = to_regclass($1) AND NOT relispartition AND NOT EXISTS (SELECT 1 FROM sessions WHERE id = $2)",
                         {table, std::to_string(session)})
                    .rows.empty())
                continue;
            c_.exec("DROP TABLE " + table);
            t.commit();
        } catch (const PgError&) {
            // another role's table, or another sweep dropping it: left for the next one
        }
    }
}

template <class F>
auto PgStore::consistent(F read) {
    if (c_.in_transaction()) return read();
    PgTransaction t(c_, read_only_begin());
    return read();
}

void PgStore::create_or_check_schema() {
    auto version = [&]() -> std::optional<int> {
        if (!c_.query("SELECT to_regclass('irqflow_schema')").rows[0][0]) return std::nullopt;
        const auto v = c_.query("SELECT max(version) FROM irqflow_schema").rows[0][0];
        return static_cast<int>(to_i64(v));
    };
    PgTransaction t(c_, "BEGIN");
    if (!readonly_) c_.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kPgSchemaLock) + ")");  // one creator at a time
    const auto v = version();
    if (!v && readonly_) throw StorageError(where() + ": no irqflow sessions here (no irqflow schema): import or push into it first");
    if (!v) {
        std::string ddl;
        for (const auto& table : pg_tables()) ddl += table.ddl + ";\n";
        ddl += pg_views_ddl();
        // PostgreSQL has no user_version: the version is a row
        ddl += "CREATE TABLE irqflow_schema (version integer NOT NULL);\nINSERT INTO irqflow_schema VALUES (" + std::to_string(kSchemaVersion) + ");\n";
        c_.exec(ddl);
    } else if (*v > kSchemaVersion) {
        throw StorageError(where() + ": schema version " + std::to_string(*v) + " is newer than this irqflow understands (" + std::to_string(kSchemaVersion) +
                           "); refusing to use it (use a newer irqflow)");
    } else if (*v < kFirstPgSchemaVersion) {
        throw StorageError(where() + ": schema version " + std::to_string(*v) + " is older than any PostgreSQL schema irqflow wrote (" +
                           std::to_string(kFirstPgSchemaVersion) + "); refusing to use it");
    } else if (*v < kSchemaVersion && readonly_) {
        throw StorageError(where() + ": schema version " + std::to_string(*v) + " must be migrated to " + std::to_string(kSchemaVersion) +
                           " first: the next import, push or rm by the schema's owner migrates it");
    } else if (*v < kSchemaVersion) {
        // Imports in flight (each holds `sessions` in ROW EXCLUSIVE mode from its INSERT
        // until it ends; so does rm) are waited for, so their rows are migrated too, and
        // new ones wait for the migration; an import that opened before re-checks the
        // version after its sessions row (pg_session_sink.cpp). Then the publish lock, as
        // an import's commit takes it: readers plan wholly before the new tables and
        // views or wholly after.
        c_.exec("LOCK TABLE sessions IN SHARE ROW EXCLUSIVE MODE; SELECT pg_advisory_xact_lock(" + std::to_string(kPgPublishLock) + ")");
        for (int from = *v; from < kSchemaVersion; ++from) pg_migrate_step(c_, from);
    }
    t.commit();
}

void PgStore::verify() {
    const auto v = c_.query("SELECT max(version) FROM irqflow_schema").rows[0][0];
    if (to_i64(v) != kSchemaVersion) throw StorageError(where() + ": schema version " + v.value_or("none") + ", not " + std::to_string(kSchemaVersion));
}

std::vector<SessionInfo> PgStore::sessions() {
    std::vector<SessionInfo> out;
    const auto rows = consistent([&] {
        return c_.query(
            "SELECT id, name, source, source_sha256, format, host_kernel, coalesce(semantics, ''), imported_at, event_count, "
            "first_ts_ns, last_ts_ns, (SELECT count(*) FROM findings f WHERE f.session = sessions.id), coalesce(host_name, ''), "
            "coalesce(guest_kernel, '') FROM sessions ORDER BY id");
    });
    for (const auto& r : rows.rows) {
        SessionInfo i;
        auto text = [&](int c) { return r[static_cast<std::size_t>(c)].value_or(""); };
        i.id = to_i64(r[0]);
        i.name = text(1);
        i.source = text(2);
        i.sha256 = text(3);
        i.format = text(4);
        i.kernel = text(5);
        i.semantics = text(6);
        i.imported_at = text(7);
        i.events = to_i64(r[8]);
        i.first_ts = to_i64(r[9]);
        i.last_ts = to_i64(r[10]);
        i.findings = to_i64(r[11]);
        i.host_name = text(12);
        i.guest_kernel = text(13);
        out.push_back(std::move(i));
    }
    return out;
}

std::optional<std::int64_t> PgStore::find(const std::string& id_or_name) {
    const auto r = c_.query("SELECT id FROM sessions WHERE name = $1 OR id::text = $1", {id_or_name});
    if (r.rows.empty()) return std::nullopt;
    return to_i64(r.rows[0][0]);
}

std::optional<SessionInfo> PgStore::session_with_source(const std::string& sha256) {
    const auto r = c_.query("SELECT id FROM sessions WHERE source_sha256 = $1", {sha256});
    if (r.rows.empty()) return std::nullopt;
    const std::int64_t id = to_i64(r.rows[0][0]);
    for (auto& s : sessions())
        if (s.id == id) return s;
    return std::nullopt;
}

bool PgStore::remove_session(const std::string& id_or_name) {
    if (readonly_) throw StorageError(where() + ": opened read-only");
    const auto id = find(id_or_name);
    if (!id) return false;
    // the session's partitions go with it: a drop each, not a delete of its rows
    std::string sql = "SELECT pg_advisory_xact_lock(" + std::to_string(kPgPublishLock) + ");\nDELETE FROM sessions WHERE id = " + std::to_string(*id) + ";\n";
    for (const auto& t : pg_tables())
        if (t.per_session) sql += "DROP TABLE IF EXISTS " + pg_session_table(t.name, *id) + ";\n";
    PgTransaction t(c_, "BEGIN");
    c_.exec(sql);
    t.commit();
    return true;
}

StoredSession PgStore::load_session(const std::string& id_or_name, const std::function<void(const ImportProgress&)>& progress,
                                    const std::function<void(const Event&)>& each) {
    StoredSession out;
    const auto id = find(id_or_name);
    if (!id) throw StorageError(where() + ": no session \"" + id_or_name + "\" (irqflow sessions --db URI lists them)");
    const std::string sid = std::to_string(*id);
    // one snapshot for every read below: a removal meanwhile cannot tear the session;
    // the publish lock (pg_store.hpp) keeps a commit out of the reads' planning
    PgTransaction t(c_, read_only_begin("ISOLATION LEVEL REPEATABLE READ "));
    {
        const auto s = c_.query("SELECT source, format, host_kernel, trace_clock, host_cpus, coalesce(semantics, '') FROM sessions WHERE id = " + sid);
        if (s.rows.empty()) throw StorageError(where() + ": session \"" + id_or_name + "\" was removed while being read");
        const auto& r = s.rows[0];
        out.trace.meta.source = r[0].value_or("");
        out.trace.meta.format = r[1].value_or("");
        out.trace.meta.kernel_release = r[2].value_or("");
        out.trace.meta.clock = r[3].value_or("");
        out.trace.meta.host_cpus = static_cast<int>(to_i64(r[4]));
        out.semantics = replay::parse_semantics(r[5].value_or("")).value_or(replay::PvEoiSemantics::Auto);
    }
    for (const auto& i : sessions())
        if (i.id == *id) out.info = i;
    out.trace.meta.host_name = out.info.host_name;
    SessionBuilder b(out, where() + ", session " + sid, each);
    for (const auto& r : c_.query("SELECT id, name FROM event_names WHERE session = " + sid + " ORDER BY id").rows) b.name(to_i64(r[0]), r[1].value_or(""));
    for (const auto& r : c_.query("SELECT vm, vcpu, tid, apic_id, apic_id_from_trace FROM vcpus WHERE session = " + sid + " ORDER BY vm, vcpu").rows)
        b.vcpu(to_i64(r[0]), to_i64(r[1]), to_i64(r[2]), to_i64(r[3]), to_i64(r[4]) != 0);
    for (const auto& r : c_.query("SELECT before_record, ts_ns, cpu, lost FROM gaps WHERE session = " + sid + " ORDER BY before_record").rows)
        b.gap(to_i64(r[0]), to_i64(r[1]), to_i64(r[2]), to_i64(r[3]));
    // Every event table's rows of the session in one stream ordered by record, each row
    // led by its kind (an index into stored_kinds), fields padded to kMaxFields.
    const auto kinds = stored_kinds();
    std::string sql;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
        const auto cols = insert_columns(kinds[k]);
        const std::size_t nfields = kind_info(kinds[k]).nfields;
        sql += (k ? " UNION ALL " : "") + std::string("SELECT ") + std::to_string(k);
        for (std::size_t c = 1; c < kCommonColumns; ++c) sql += ", " + cols[c];
        for (std::size_t f = 0; f < kMaxFields; ++f) sql += f < nfields ? ", " + cols[kCommonColumns + f] : std::string(", NULL::bigint");
        sql += kinds[k] == EventKind::Other ? ", name_id" : ", NULL::bigint";
        sql += " FROM " + std::string(event_table(kinds[k])) + " WHERE session = " + sid;
    }
    sql += " ORDER BY 2";
    ImportProgress p{0, static_cast<std::uint64_t>(std::max<std::int64_t>(out.info.events, 0))};
    SessionBuilder::EventRow row;
    constexpr std::size_t kColumns = kCommonColumns + kMaxFields + 1;  // kind, record … vcpu, f0…, name_id
    std::array<std::optional<std::int64_t>, kColumns> cell{};
    c_.copy_out(sql, [&](std::string_view line) {
        std::size_t c = 0, at = 0;
        for (; c < kColumns && at <= line.size(); ++c) {
            const std::size_t tab = std::min(line.find('\t', at), line.size());
            const std::string_view v = line.substr(at, tab - at);
            at = tab + 1;
            if (v == "\\N") {
                cell[c].reset();
                continue;
            }
            std::int64_t x = 0;
            const auto [stop, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
            if (ec != std::errc() || stop != v.data() + v.size()) throw StorageError(b.where() + ": an event row that is not numbers (damaged database?)");
            cell[c] = x;
        }
        if (c != kColumns || !cell[0] || static_cast<std::size_t>(*cell[0]) >= kinds.size() || !cell[1] || !cell[2])
            throw StorageError(b.where() + ": an event row of an unexpected shape");
        row.kind = kinds[static_cast<std::size_t>(*cell[0])];
        row.record = *cell[1];
        row.ts = *cell[2];
        row.cpu = cell[3].value_or(0);
        row.tid = cell[4].value_or(0);
        row.vm = cell[5];
        row.vcpu = cell[6];
        for (std::size_t f = 0; f < kMaxFields; ++f) row.fields[f] = cell[kCommonColumns + f];
        row.name_id = cell[kColumns - 1].value_or(-1);
        b.event(row);
        if (++p.done % 65536 == 0 && progress) progress(p);
    });
    for (const auto& r : c_.query("SELECT line, ts_ns, alignment, text FROM serial_lines WHERE session = " + sid + " ORDER BY line").rows)
        b.serial_line(to_i64(r[0]), r[1] ? std::optional<std::int64_t>(to_i64(r[1])) : std::nullopt, r[2].value_or(""), r[3].value_or(""));
    b.finish();
    // the guest's side, if one was imported (guest_rows.hpp)
    const auto header = c_.query(std::string("SELECT ") + kGuestTraceColumns + " FROM guest_traces WHERE session = " + sid).rows;
    if (!header.empty())
        out.guest = guest_side_from(header.front(),
                                    c_.query(std::string("SELECT ") + kGuestEventColumns + " FROM guest_events WHERE session = " + sid +
                                             " ORDER BY ts_ns IS NULL, coalesce(ts_ns, guest_ts_ns), record")
                                        .rows,
                                    b.where());
    if (progress) progress(p);
    return out;
}

std::uint64_t PgStore::query(const std::string& sql, const std::function<void(const std::vector<std::string>&)>& on_columns,
                             const std::function<void(const QueryRow&, const QueryTypes&)>& on_row, const QueryLimits& limits) {
    // One statement, read only, in three layers: the text becomes a derived table (a
    // second statement, COPY or DDL is a syntax error there; a trailing comment ends at
    // the newline), libpq's extended protocol takes one statement only, and the
    // transaction is READ ONLY. The role's own grants (README, "Fleet") come first.
    std::string body = sql;
    while (!body.empty() && (std::isspace(static_cast<unsigned char>(body.back())) || body.back() == ';')) body.pop_back();
    std::string wrapped = "SELECT * FROM (\n" + body + "\n) AS query";
    if (limits.max_rows) wrapped += " LIMIT " + std::to_string(limits.max_rows);
    PgTransaction txn(c_, read_only_begin());
    if (limits.timeout_s > 0) c_.exec("SET LOCAL statement_timeout = " + std::to_string(static_cast<long long>(limits.timeout_s * 1000 + 0.5)));
    std::uint64_t delivered = 0;
    QueryTypes types;
    QueryRow row;
    try {
        c_.stream(wrapped, {},
                  [&](const std::vector<std::string>& names, const std::vector<unsigned>& oids) {
                      types.clear();
                      for (auto o : oids) types.push_back(cell_type(o));
                      if (on_columns) on_columns(names);
                  },
                  [&](const std::vector<std::optional<std::string_view>>& cells) {
                      row.resize(cells.size());
                      QueryTypes t = types;
                      for (std::size_t c = 0; c < cells.size(); ++c) {
                          if (cells[c]) row[c] = std::string(*cells[c]);
                          else {
                              row[c].reset();
                              t[c] = CellType::Null;
                          }
                      }
                      ++delivered;
                      if (on_row) on_row(row, t);
                      return true;
                  });
    } catch (const PgError& e) {
        if (e.sqlstate == "57014" && limits.timeout_s > 0) {
            char secs[32];
            std::snprintf(secs, sizeof secs, "%g", limits.timeout_s);
            throw StorageError(std::string("SQL error: stopped at the time limit of ") + secs + " s (" + std::to_string(delivered) + " rows given)");
        }
        std::string msg = e.what();
        const auto at = msg.find("ERROR:");
        throw StorageError("SQL error: " + (at == std::string::npos ? msg : msg.substr(at)));
    }
    return delivered;
}

}  // namespace irqflow::storage
