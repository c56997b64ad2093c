#include "pg_schema.hpp"

#include <sqlite3.h>

#include <map>
#include <memory>

#include "../sqlite_util.hpp"

namespace irqflow::storage {

namespace {

std::string pg_type(std::string sqlite_type) {
    for (auto& c : sqlite_type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (sqlite_type == "INTEGER") return "bigint";
    if (sqlite_type == "REAL") return "double precision";
    if (sqlite_type == "TEXT") return "text";
    throw StorageError("PostgreSQL schema: no type for SQLite's '" + sqlite_type + "'");
}

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

}  // namespace

std::vector<PgTable> pg_tables() {
    // the schema as this build creates it: an in-memory database migrated to the end
    Database reference(":memory:", Database::Mode::ReadWrite);
    sqlite3* db = reference.handle();
    std::vector<PgTable> out;
    Stmt tables(db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
    while (tables.row()) {
        PgTable t;
        t.name = tables.text(0);
        std::string cols, pk;
        std::map<int, std::string> pk_cols;  // position in the key → column
        Stmt info(db, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid");
        info.bind(1, t.name);
        while (info.row()) {
            const std::string col = info.text(0);
            cols += (cols.empty() ? "" : ", ") + quoted(col) + " " + pg_type(info.text(1)) + (info.i64(2) ? " NOT NULL" : "");
            if (info.i64(3) > 0) pk_cols[static_cast<int>(info.i64(3))] = quoted(col);
            if (col == "session") t.per_session = true;
        }
        if (t.name == "sessions") t.per_session = false;  // the partition key's own table
        for (const auto& [pos, col] : pk_cols) pk += (pk.empty() ? "" : ", ") + col;
        if (!pk.empty()) cols += ", PRIMARY KEY (" + pk + ")";
        // UNIQUE constraints (sessions.name, sessions.source_sha256): enforced by the
        // server, so two hosts pushing the same trace at once store it once
        Stmt idx(db, "SELECT name FROM pragma_index_list(?1) WHERE origin = 'u'");
        idx.bind(1, t.name);
        while (idx.row()) {
            std::string u;
            Stmt ic(db, "SELECT name FROM pragma_index_info(?1) ORDER BY seqno");
            ic.bind(1, idx.text(0));
            while (ic.row()) u += (u.empty() ? "" : ", ") + quoted(ic.text(0));
            cols += ", UNIQUE (" + u + ")";
        }
        t.ddl = "CREATE TABLE " + quoted(t.name) + " (" + cols + ")" + (t.per_session ? " PARTITION BY LIST (session)" : "");
        out.push_back(std::move(t));
    }
    return out;
}

std::string pg_partition_ddl(const PgTable& t, long long session) {
    return "CREATE TABLE " + quoted(t.name + "_s" + std::to_string(session)) + " PARTITION OF " + quoted(t.name) + " FOR VALUES IN (" +
           std::to_string(session) + ")";
}

}  // namespace irqflow::storage
