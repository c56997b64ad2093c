// The fleet backend's connection, against the real PostgreSQL 15 server ctest starts
// (.ci/pg-server, fixture "pg"; IRQFLOW_PG_SERVER names the directory with its URI).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "irqflow/storage/database.hpp"
#include "pg/pg_connection.hpp"
#include "pg/pg_schema.hpp"
#include "pg/pg_views.hpp"
#include "sqlite/sqlite_util.hpp"

using namespace irqflow::storage;

namespace {
std::string server() {
    const char* dir = std::getenv("IRQFLOW_PG_SERVER");
    REQUIRE(dir);  // set by ctest, whose fixture started the server
    std::ifstream in(std::string(dir) + "/uri");
    std::string uri;
    REQUIRE(std::getline(in, uri));
    return uri;
}
}  // namespace

TEST_CASE("a --db argument is a PostgreSQL server by its scheme, anything else a file", "[pg]") {
    CHECK(is_postgres_uri("postgresql://host/db"));
    CHECK(is_postgres_uri("postgres://u@host:5433/db?sslmode=require"));
    CHECK_FALSE(is_postgres_uri("sessions.db"));
    CHECK_FALSE(is_postgres_uri("./postgresql://x"));
    CHECK_FALSE(is_postgres_uri("POSTGRESQL://host/db"));  // a file of that name, as libpq would not take it either
}

TEST_CASE("a password never reaches a message", "[pg]") {
    CHECK(redacted_uri("postgresql://fleet:s3cr3t@db.example:5432/irq") == "postgresql://fleet:***@db.example:5432/irq");
    CHECK(redacted_uri("postgres://db/irq?user=a&password=s3cr3t&sslmode=verify-full") ==
          "postgres://db/irq?user=a&password=***&sslmode=verify-full");
    CHECK(redacted_uri("postgresql://fleet@db/irq") == "postgresql://fleet@db/irq");
    try {
        PgConnection c("postgresql://fleet:s3cr3t@127.0.0.1:1/irq?connect_timeout=2");
        FAIL("connected to port 1");
    } catch (const StorageError& e) {
        const std::string m = e.what();
        CHECK(m.find("s3cr3t") == std::string::npos);
        CHECK(m.rfind("postgresql://fleet:***@127.0.0.1:1/irq?connect_timeout=2: cannot connect: ", 0) == 0);
    }
}

TEST_CASE("statements, parameters, NULLs and COPY with every character that needs escaping", "[pg]") {
    PgConnection c(server());
    CHECK(c.server_version() / 10000 == 15);
    c.exec("DROP TABLE IF EXISTS copy_probe; CREATE TABLE copy_probe (id bigint, text text)");
    const std::vector<std::string> texts = {"plain", "tab\there", "new\nline", "back\\slash", "cr\rend", "", "ünïcode"};
    std::size_t next = 0;
    c.copy_in("copy_probe", {"id", "text"}, [&](std::string& buf) {
        for (int k = 0; k < 2 && next < texts.size(); ++k, ++next) buf += std::to_string(next) + "\t" + copy_escape(texts[next]) + "\n";
        buf += next == texts.size() ? "99\t\\N\n" : "";
        return next < texts.size();
    });
    const auto rows = c.query("SELECT id, text FROM copy_probe WHERE id < $1 OR text IS NULL ORDER BY id", {std::string("100")});
    REQUIRE(rows.rows.size() == texts.size() + 1);
    for (std::size_t i = 0; i < texts.size(); ++i) CHECK(rows.rows[i][1] == texts[i]);
    CHECK_FALSE(rows.rows.back()[1].has_value());
    CHECK(rows.columns == std::vector<std::string>{"id", "text"});
    // a failing fill aborts the COPY and leaves the connection usable
    CHECK_THROWS_AS(c.copy_in("copy_probe", {"id", "text"}, [](std::string&) -> bool { throw StorageError("stop"); }), StorageError);
    CHECK(c.query("SELECT count(*) FROM copy_probe").rows[0][0] == std::to_string(texts.size() + 1));
    // bad SQL names the server and the statement
    try {
        c.exec("SELEC 1");
        FAIL("ran bad SQL");
    } catch (const StorageError& e) {
        CHECK(std::string(e.what()).find("\"SELEC 1\": ERROR:  syntax error at or near \"SELEC\"") != std::string::npos);
    }
    c.exec("DROP TABLE copy_probe");
}

TEST_CASE("the PostgreSQL tables are SQLite's: same names, columns and keys, partitioned by session", "[pg]") {
    const auto tables = pg_tables();
    REQUIRE(tables.size() > 40);  // sessions, the replay's tables, one per event kind
    PgConnection c(server());
    c.exec("DROP SCHEMA IF EXISTS schema_probe CASCADE; CREATE SCHEMA schema_probe; SET search_path = schema_probe");
    for (const auto& t : tables) {
        INFO(t.ddl);
        c.exec(t.ddl);
        if (t.per_session) c.exec(pg_session_table_ddl(t, 7) + "; " + pg_attach_ddl(t, 7));
    }
    // every column of every SQLite table is there, under its name, in its order
    Database reference(":memory:", Database::Mode::ReadWrite);
    for (const auto& t : tables) {
        INFO(t.name);
        const auto pg = c.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'schema_probe' AND table_name = $1 "
                                "ORDER BY ordinal_position",
                                {t.name});
        std::vector<std::string> lite;
        Stmt info(reference.handle(), "SELECT name FROM pragma_table_info(?1) ORDER BY cid");
        info.bind(1, std::string_view(t.name));
        while (info.row()) lite.push_back(info.text(0));
        REQUIRE(pg.rows.size() == lite.size());
        for (std::size_t i = 0; i < lite.size(); ++i) CHECK(pg.rows[i][0] == lite[i]);
    }
    // the server enforces what SQLite does: one session per source hash
    c.exec("INSERT INTO sessions (id, name, source, source_sha256, imported_at) VALUES (7, 'a', 'a.dat', 'h', 'now')");
    CHECK_THROWS_WITH(c.exec("INSERT INTO sessions (id, name, source, source_sha256, imported_at) VALUES (8, 'b', 'b.dat', 'h', 'now')"),
                      Catch::Contains("duplicate key value violates unique constraint"));
    // a session's rows land in its partition, and another session has none to go to
    c.exec("INSERT INTO kvm_exit (session, record, ts_ns) VALUES (7, 1, 100)");
    CHECK(c.query("SELECT count(*) FROM kvm_exit_s7").rows[0][0] == "1");
    CHECK_THROWS_WITH(c.exec("INSERT INTO kvm_exit (session, record, ts_ns) VALUES (8, 1, 100)"), Catch::Contains("no partition"));
    c.exec("DROP SCHEMA schema_probe CASCADE");
}

TEST_CASE("the PostgreSQL views are SQLite's: every view, with the same columns in the same order", "[pg]") {
    PgConnection c(server());
    c.exec("DROP SCHEMA IF EXISTS view_probe CASCADE; CREATE SCHEMA view_probe; SET search_path = view_probe");
    for (const auto& t : pg_tables()) c.exec(t.ddl);
    c.exec(pg_views_ddl());
    Database reference(":memory:", Database::Mode::ReadWrite);
    Stmt views(reference.handle(), "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name");
    std::size_t n = 0;
    while (views.row()) {
        const std::string view = views.text(0);
        INFO(view);
        ++n;
        std::vector<std::string> lite;
        Stmt info(reference.handle(), "SELECT name FROM pragma_table_info(?1) ORDER BY cid");
        info.bind(1, std::string_view(view));
        while (info.row()) lite.push_back(info.text(0));
        const auto pg = c.query("SELECT column_name FROM information_schema.columns WHERE table_schema = 'view_probe' AND table_name = $1 "
                                "ORDER BY ordinal_position",
                                {view});
        REQUIRE(pg.rows.size() == lite.size());
        for (std::size_t i = 0; i < lite.size(); ++i) CHECK(pg.rows[i][0] == lite[i]);
        c.query("SELECT * FROM " + view + " LIMIT 1");  // and it runs
    }
    CHECK(n >= 10);
    const auto pg_views = c.query("SELECT count(*) FROM information_schema.views WHERE table_schema = 'view_probe'");
    CHECK(pg_views.rows[0][0] == std::to_string(n));  // no view of its own either
    c.exec("DROP SCHEMA view_probe CASCADE");
}
