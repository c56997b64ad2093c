// The fleet backend's connection, against the real PostgreSQL 15 server ctest starts
// (.ci/pg-server, fixture "pg"; IRQFLOW_PG_SERVER names the directory with its URI).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include "irqflow/storage/database.hpp"
#include "pg/pg_connection.hpp"

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
