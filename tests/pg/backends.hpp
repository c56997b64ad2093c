// The storage suite runs on both backends (storage/README.md, "Backends"): each test
// takes a fresh, empty store of the backend GENERATE picks — an SQLite file in the
// scratch directory, or a schema of its own on the PostgreSQL server ctest started
// (.ci/pg-server; IRQFLOW_PG_SERVER names the directory holding its URI).
#pragma once
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "helpers.hpp"
#include "storage_helpers.hpp"
#include "irqflow/storage/store.hpp"
#include "pg/pg_connection.hpp"

namespace irqflow::test {

inline std::string pg_server_uri() {
    const char* dir = std::getenv("IRQFLOW_PG_SERVER");
    if (!dir) FAIL("IRQFLOW_PG_SERVER is not set: run these tests through ctest, which starts the server (.ci/pg-server)");
    std::ifstream in(std::string(dir) + "/uri");
    std::string uri;
    if (!std::getline(in, uri)) FAIL(std::string(dir) + "/uri: no server URI (did .ci/pg-server start fail?)");
    return uri;
}

// A URI of the test server whose connections see only schema `schema` (made empty).
inline std::string pg_schema_uri(const std::string& schema) {
    const std::string uri = pg_server_uri();
    storage::PgConnection c(uri);
    c.exec("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE; CREATE SCHEMA \"" + schema + "\"");
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
}

// Where a fresh, empty store of `backend` ("sqlite" or "postgresql") named `name` is.
inline std::string fresh_store_location(const std::string& backend, const std::string& name) {
    return backend == "postgresql" ? pg_schema_uri(name) : fresh_db(name + ".db").string();
}

// Version 10's additions undone: what the 9 → 10 migration starts from.
inline constexpr const char* kUndoSchema10 =
    "DROP VIEW delivery_latency; DROP TABLE guest_traces; DROP TABLE guest_events; ALTER TABLE findings DROP COLUMN guest_record; ";

// Takes the schema at `uri` back to version 9 (the guest's side not there yet).
inline void pg_back_to_schema_9(const std::string& uri) {
    storage::PgConnection(uri).exec(std::string(kUndoSchema10) + "UPDATE irqflow_schema SET version = 9");
}

// Takes the schema at `uri` back to version 7 as that release made it (no ipi_counts,
// its ipi_fanout grouping every IPI row): what the 7 → 8 migration starts from.
inline void pg_back_to_schema_7(const std::string& uri) {
    storage::PgConnection c(uri);
    c.exec(std::string(kUndoSchema10) + "DROP VIEW exits_per_reason_all; DROP VIEW ipi_fanout; DROP TABLE ipi_counts; CREATE VIEW ipi_fanout AS SELECT session, kind, '0x' || lpad(to_hex(vector), 2, '0') AS vector, "
           "destinations, count(*) AS ipis, sum((delivered != destinations)::int) AS mismatched FROM ipis GROUP BY session, kind, vector, destinations; "
           "UPDATE irqflow_schema SET version = 7");
}

inline std::unique_ptr<storage::Store> fresh_store(const std::string& backend, const std::string& name) {
    return storage::open_store(fresh_store_location(backend, name), storage::Store::Mode::ReadWrite);
}

}  // namespace irqflow::test
