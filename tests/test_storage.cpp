// Storage: real samples imported into a real SQLite file, answered by SQL and compared
// with what capture and replay computed directly.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include "edit_events.hpp"
#include "helpers.hpp"
#include "storage_helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/database.hpp"
#include "irqflow/storage/sha256.hpp"
#include "trace_builder.hpp"

using namespace irqflow;
using namespace irqflow::test;
using storage::Database;

TEST_CASE("queries are read-only, one statement, and bad SQL says where", "[storage][cli]") {
    auto path = fresh_db("ro.db");
    {
        Database d(path.string(), Database::Mode::ReadWrite);
        import_sample(d, "pveoi-on-midflight-v6.dat");
    }
    Database ro(path.string(), Database::Mode::ReadOnly);
    CHECK_THROWS_WITH(ro.query("DELETE FROM sessions"), Catch::Contains("only reading"));
    CHECK_THROWS_WITH(ro.query("SELECT 1; SELECT 2"), Catch::Contains("one statement"));
    CHECK_THROWS_WITH(ro.query("SELECT count(*) FROM nowhere"), Catch::Contains("no such table"));
    CHECK_THROWS_WITH(ro.query("SELEC 1"), Catch::Contains("offset 0"));
    auto r = run(cli() + " query --db '" + path.string() + "' 'SELECT name, event_count FROM sessions' --csv");
    CHECK(r.status == 0);
    CHECK(r.out == "name,event_count\npveoi-on-midflight-v6.dat,30998\n");
    auto bad = run(cli() + " query --db '" + path.string() + "' 'SELECT * FROM sessions WHERE'", true);
    CHECK(bad.status == 2);
    CHECK(bad.out.find(path.string()) != std::string::npos);
    CHECK(bad.out.find("SQL error") != std::string::npos);
}

TEST_CASE("a reader keeps reading while an import writes", "[storage]") {
    auto path = fresh_db("wal.db");
    {
        Database d(path.string(), Database::Mode::ReadWrite);
        import_sample(d, "pveoi-on-midflight-v6.dat");
    }
    Database writer(path.string(), Database::Mode::ReadWrite);
    sqlite3_exec(writer.handle(), "BEGIN IMMEDIATE; INSERT INTO sessions (name, source, source_sha256) VALUES ('w', 'w', 'w')", nullptr, nullptr, nullptr);
    Database reader(path.string(), Database::Mode::ReadOnly);
    CHECK(one(reader, "SELECT count(*) FROM sessions") == "1");  // not blocked, sees the committed state
    sqlite3_exec(writer.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

TEST_CASE("kill -9 during an import leaves a valid database without a partial session", "[storage][crash]") {
    auto path = fresh_db("crash.db");
    // How long a whole import takes here (much longer under sanitizers): the database is
    // written only after loading and replaying, so the kills aim at the later part.
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(run(std::string(IRQFLOW_CLI) + " import '" + sample("xapic.dat") + "' --db '" + path.string() + "'").status == 0);
    const double full_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    int killed_mid_import = 0;
    for (double fraction : {0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.96, 0.99}) {
        const int delay_ms = static_cast<int>(full_ms * fraction);
        for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + ext);
        const pid_t pid = fork();
        if (pid == 0) {
            execl(IRQFLOW_CLI, IRQFLOW_CLI, "import", sample("xapic.dat").c_str(), "--db", path.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        kill(pid, SIGKILL);
        int st = 0;
        waitpid(pid, &st, 0);
        if (!std::filesystem::exists(path)) continue;  // killed before it created the file
        Database d(path.string(), Database::Mode::ReadWrite);
        INFO("killed after " << delay_ms << " ms");
        CHECK(one(d, "PRAGMA integrity_check") == "ok");
        const auto sessions = std::stoll(one(d, "SELECT count(*) FROM sessions"));
        const auto rows = std::stoll(one(d, "SELECT count(*) FROM events"));
        if (sessions == 0) {
            CHECK(rows == 0);
            killed_mid_import += WIFSIGNALED(st);
        } else {
            CHECK(rows == 150406);  // complete, or not there at all
        }
    }
    CHECK(killed_mid_import > 0);
}

TEST_CASE("an import the disk cannot hold fails naming the file and the session, leaving the database as it was", "[storage][bad-input]") {
    auto path = fresh_db("full.db");
    REQUIRE(run(cli() + " import '" + sample("pveoi-on.dat") + "' --db '" + path.string() + "'").status == 0);
    const auto rows_before = [&] {
        Database d(path.string(), Database::Mode::ReadOnly);
        return one(d, "SELECT count(*) FROM events");
    }();
    // A 2 MiB limit on any file irqflow writes (sh counts 512-byte blocks), SIGXFSZ
    // ignored so the write fails with EFBIG instead of killing: a full disk as SQLite
    // sees it. The second session's pages reach the WAL (from 0 bytes) only at COMMIT
    // (they fit SQLite's cache), so it is the commit that fails, after every row went in.
    const auto r = run("trap '' XFSZ; ulimit -f 4096; " + cli() + " import '" + sample("pveoi-off.dat") + "' --db '" + path.string() + "'", true);
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find(path.string() + ": committing session \"pveoi-off.dat\": disk I/O error") != std::string::npos);
    Database d(path.string(), Database::Mode::ReadWrite);
    CHECK(one(d, "PRAGMA integrity_check") == "ok");
    CHECK(one(d, "SELECT group_concat(name) FROM sessions") == "pveoi-on.dat");
    CHECK(one(d, "SELECT count(*) FROM events") == rows_before);
    CHECK(one(d, "SELECT count(*) FROM interrupts WHERE session != 1") == "0");
}

TEST_CASE("schema 3: a version-2 file's stats take the keys of check --json", "[storage]") {
    auto v2 = fresh_db("v2.db");
    {
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open(v2.c_str(), &db) == SQLITE_OK);
        for (int i = 0; i < 2; ++i) REQUIRE(sqlite3_exec(db, storage::migrations()[static_cast<std::size_t>(i)].c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db,
                             "PRAGMA user_version = 2;"
                             "INSERT INTO sessions (id, name, source, source_sha256, event_count) VALUES (1, 'old', 'old.dat', 'abc', 1);"
                             "INSERT INTO stats VALUES (1, 'injections', 40), (1, 'eois_path_pv-eoi', 30), (1, 'eois_path_x2apic-msr', 5),"
                             " (1, 'liveness_failures', 0), (1, 'exits', 90);",
                             nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(db);
    }
    Database d(v2.string(), Database::Mode::ReadWrite);
    CHECK(d.schema_version() == storage::kSchemaVersion);
    CHECK(one(d, "SELECT group_concat(key || '=' || CAST(value AS INTEGER), ' ') FROM (SELECT * FROM stats ORDER BY key)") ==
          "eois_by_path_pv-eoi=30 eois_by_path_x2apic-msr=5 exits=90 injections_all=40 liveness=0");
    CHECK(one(d, "SELECT CAST(pv_eois IS NULL AS INTEGER) FROM pv_eoi_hit_rate WHERE session = 1") == "1");
}

TEST_CASE("schema 4: a follow-on finding names its root, the root what the model adopted", "[storage]") {
    auto path = fresh_db("cascade.db");
    const std::string cascade = std::string(IRQFLOW_CASES) + "/ISR-ORDER-fires-cascade-collapsed.txt";
    REQUIRE(run(cli() + " import '" + cascade + "' --db '" + path.string() + "'").status == 0);
    Database d(path.string(), Database::Mode::ReadOnly);
    CHECK(one(d, "SELECT group_concat(rule || ' ' || record || ' ' || coalesce(caused_by, '-'), '; ') FROM "
                 "(SELECT * FROM findings ORDER BY id)") == "ISR-ORDER 10 -; EOI-NOT-HIGHEST-ISR 11 0; PVEOI-NOT-ARMED 15 0");
    CHECK(one(d, "SELECT resync FROM findings_with_evidence WHERE caused_by IS NULL") == "retired {0xfd} from ISR");
    CHECK(one(d, "SELECT CAST(value AS INTEGER) FROM stats WHERE key = 'follow_ons'") == "2");
}

TEST_CASE("schema 5: a version-4 file's events move to the per-kind tables, its exits into kvm_exit", "[storage]") {
    auto v4 = fresh_db("v4.db");
    {
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open(v4.c_str(), &db) == SQLITE_OK);
        for (int i = 0; i < 4; ++i) REQUIRE(sqlite3_exec(db, storage::migrations()[static_cast<std::size_t>(i)].c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        const std::int64_t s1 = std::int64_t{1} << 40, s2 = std::int64_t{2} << 40;
        const std::string sql =
            "PRAGMA user_version = 4;"
            "INSERT INTO sessions (id, name, source, source_sha256, event_count) VALUES (1, 'a', 'a.dat', 'a', 4), (2, 'b', 'b.dat', 'b', 2);"
            "INSERT INTO event_names VALUES (1, 0, 'kvm_entry'), (1, 1, 'kvm_exit'), (1, 2, 'kvm_fpu'), (1, 3, 'kvm_nested_vmrun'),"
            " (2, 0, 'kvm_exit'), (2, 1, 'kvm_entry');"
            "INSERT INTO vcpus VALUES (1, 0, 0, 100, 0, 1), (2, 0, 0, 200, 0, 1);"
            "INSERT INTO event_rows (rowid, ts_ns, cpu, tid, vm, vcpu, name_id, f0, f1) VALUES"
            " (" + std::to_string(s1) + ", 100, 0, 100, 0, 0, 0, 0, 4096),"
            " (" + std::to_string(s1 + 1) + ", 150, 0, 100, 0, 0, 1, 12, 1),"
            " (" + std::to_string(s1 + 2) + ", 160, 0, 100, 0, 0, 2, NULL, NULL),"
            " (" + std::to_string(s1 + 3) + ", 170, 0, 100, 0, 0, 3, 4096, NULL),"
            " (" + std::to_string(s2) + ", 10, 1, 200, 0, 0, 0, 120, 2),"
            " (" + std::to_string(s2 + 1) + ", 30, 1, 200, 0, 0, 1, 0, 4096);"
            "INSERT INTO exits VALUES (1, 1, 150, 0, 0, 1, 12, 'HLT', 50, NULL, 1), (2, 0, 10, 0, 0, 2, 120, 'EXIT_HLT', NULL, 20, 1);";
        REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(db);
    }
    Database d(v4.string(), Database::Mode::ReadWrite);
    CHECK(d.schema_version() == storage::kSchemaVersion);
    CHECK(one(d, "SELECT group_concat(session || ':' || record || ':' || name, ' ') FROM (SELECT * FROM events ORDER BY session, record)") ==
          "1:0:kvm_entry 1:1:kvm_exit 1:2:kvm_fpu 1:3:kvm_nested_vmenter 2:0:kvm_exit 2:1:kvm_entry");
    CHECK(one(d, "SELECT group_concat(session || ' ' || exit_reason || ' ' || isa || ' ' || coalesce(guest_ns, '-') || ' ' || coalesce(host_ns, '-'), '; ') "
                 "FROM kvm_exit") == "1 12 1 50 -; 2 120 2 - 20");
    CHECK(one(d, "SELECT group_concat(reason_name || ' ' || halted, ', ') FROM exits") == "HLT 1, EXIT_HLT 1");
    CHECK(one(d, "SELECT count(*) FROM intervals WHERE session = 2 AND state = 'halted'") == "1");
    CHECK(one(d, "SELECT count(*) FROM sqlite_master WHERE name IN ('event_rows')") == "0");
    // the migrated sessions read back, and removing one leaves the other whole
    CHECK(d.load_session("a").trace.records() == 4);
    REQUIRE(d.remove_session("a"));
    CHECK(one(d, "SELECT count(*) FROM events") == "2");
    CHECK(d.load_session("b").trace.events.size() == 2);
}

TEST_CASE("schema migrations: a version-1 file is upgraded, a newer one refused untouched", "[storage]") {
    auto v1 = fresh_db("v1.db");
    {
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open(v1.c_str(), &db) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db, storage::migrations()[0].c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db,
                             "PRAGMA user_version = 1;"
                             "INSERT INTO sessions (id, name, source, source_sha256, event_count) VALUES (1, 'old', 'old.dat', 'abc', 1);"
                             "INSERT INTO event_names VALUES (1, 0, 'kvm_exit');"
                             "INSERT INTO event_rows (rowid, ts_ns, name_id) VALUES (1099511627776, 5, 0);",
                             nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(db);
    }
    {
        Database d(v1.string(), Database::Mode::ReadWrite);
        CHECK(d.schema_version() == storage::kSchemaVersion);
        CHECK(one(d, "SELECT name FROM events WHERE session = 1") == "kvm_exit");
        CHECK(one(d, "SELECT count(*) FROM findings") == "0");  // new tables exist
        CHECK(one(d, "SELECT semantics IS NULL FROM sessions") == "1");
        import_sample(d, "pveoi-on-midflight-v6.dat");  // and the upgraded file takes new sessions
    }
    auto newer = fresh_db("v99.db");
    {
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open(newer.c_str(), &db) == SQLITE_OK);
        sqlite3_exec(db, "CREATE TABLE future (x); PRAGMA user_version = 99;", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    }
    const std::string before = read_file(newer.string());
    CHECK_THROWS_WITH(Database(newer.string(), Database::Mode::ReadWrite), Catch::Contains("newer"));
    CHECK(read_file(newer.string()) == before);
    auto r = run(cli() + " sessions --db '" + newer.string() + "'", true);
    CHECK(r.status == 2);
    CHECK(r.out.find("schema version 99") != std::string::npos);
}

TEST_CASE("a corrupt database is refused with its file name, by the CLI and the GUI alike", "[storage][bad-input]") {
    auto path = fresh_db("corrupt.db");
    std::string bytes("SQLite format 3\0", 16);
    for (int i = 0; i < 8192; ++i) bytes += static_cast<char>((i * 2654435761u) >> 13);
    write_file(path, bytes);
    auto r = run(cli() + " sessions --db '" + path.string() + "'", true);
    CHECK(r.status == 2);
    CHECK(r.out.find(path.string()) != std::string::npos);
    CHECK_THROWS_WITH(Database(path.string(), Database::Mode::ReadOnly), Catch::Contains(path.string()));
    if (run("command -v xvfb-run").status == 0) {
        r = run_gui("--screenshot /dev/null '" + path.string() + "'");
        CHECK(r.status == 2);
        CHECK(r.out.find(path.string()) != std::string::npos);
    }
}

TEST_CASE("a stored event count far beyond what the file holds does not size the load", "[storage][bad-input]") {
    auto path = fresh_db("huge-count.db");
    {
        Database d(path.string(), Database::Mode::ReadWrite);
        const Trace t = load_trace(sample("pit.dat"));
        d.import_session("pit", t, storage::sha256("pit"), replay::replay(t), nullptr);
    }
    {
        sqlite3* db = nullptr;
        REQUIRE(sqlite3_open(path.string().c_str(), &db) == SQLITE_OK);
        REQUIRE(sqlite3_exec(db, "UPDATE sessions SET event_count = 1000000000000000", nullptr, nullptr, nullptr) == SQLITE_OK);
        sqlite3_close(db);
    }
    Database d(path.string(), Database::Mode::ReadOnly);
    const auto back = d.load_session("pit");
    CHECK(back.trace.records() == load_trace(sample("pit.dat")).records());
}

TEST_CASE("stored VM and vCPU ids that the session does not list are refused, by the loader and the GUI", "[storage][bad-input]") {
    const Trace t = load_trace(sample("pit.dat"));
    const auto result = replay::replay(t);
    struct Damage {
        const char* sql;
        const char* says;
    };
    for (const Damage& d : {Damage{"UPDATE vcpus SET vm = 7", "VM ids must run 0, 1, 2"},
                            Damage{"UPDATE vcpus SET vcpu = -1 WHERE vcpu = (SELECT min(vcpu) FROM vcpus)", "vCPU id out of range"},
                            Damage{"UPDATE vcpus SET vcpu = 4294967295 WHERE vcpu = (SELECT min(vcpu) FROM vcpus)", "vCPU id out of range"},
                            Damage{"UPDATE kvm_entry SET vm = 5 WHERE rowid = (SELECT min(rowid) FROM kvm_entry WHERE vm IS NOT NULL)",
                                   "VM 5 is not one the session lists"},
                            Damage{"UPDATE kvm_entry SET vcpu = -7 WHERE rowid = (SELECT min(rowid) FROM kvm_entry WHERE vcpu IS NOT NULL)",
                                   "vCPU -7 is not one the session lists"},
                            // the per-kind tables (schema 5): ranges, sessions and records must agree
                            Damage{"UPDATE event_tables SET name = 'sqlite_master' WHERE name = 'kvm_exit'", "which is no event table"},
                            Damage{"UPDATE kvm_exit SET session = 99 WHERE rowid = (SELECT min(rowid) FROM kvm_exit)", "a row of session 99"},
                            Damage{"UPDATE kvm_exit SET record = (SELECT min(record) FROM kvm_entry) WHERE rowid = (SELECT min(rowid) FROM kvm_exit)",
                                   "stored twice"},
                            Damage{"UPDATE kvm_exit SET record = -3 WHERE rowid = (SELECT min(rowid) FROM kvm_exit)", "negative record"},
                            Damage{"UPDATE other_events SET name_id = 999 WHERE rowid = (SELECT min(rowid) FROM other_events)", "unknown event name id 999"},
                            Damage{"DELETE FROM event_names WHERE name = 'kvm_entry'", "no event name for kvm_entry"}}) {
        INFO(d.sql);
        auto path = fresh_db("bad-ids.db");
        {
            Database db(path.string(), Database::Mode::ReadWrite);
            db.import_session("pit", t, storage::sha256("pit"), result, nullptr);
        }
        {
            sqlite3* db = nullptr;
            REQUIRE(sqlite3_open(path.string().c_str(), &db) == SQLITE_OK);
            REQUIRE(sqlite3_exec(db, d.sql, nullptr, nullptr, nullptr) == SQLITE_OK);
            REQUIRE(sqlite3_changes(db) > 0);
            sqlite3_close(db);
        }
        Database db(path.string(), Database::Mode::ReadOnly);
        CHECK_THROWS_WITH(db.load_session("pit"), Catch::Contains(d.says) && Catch::Contains(path.string()));
        if (run("command -v xvfb-run").status == 0) {
            auto r = run_gui("--screenshot /dev/null '" + path.string() + "' pit");
            CHECK(r.status == 2);
            CHECK(r.out.find(d.says) != std::string::npos);
        }
    }
}

TEST_CASE("query cannot write or attach or vacuum or leak addresses and streams within a limit and a timeout leaving no files", "[storage][cli][bad-input]") {
    auto path = fresh_db("query-side-effects.db");
    {
        Database d(path.string(), Database::Mode::ReadWrite);
        import_sample(d, "pveoi-on-midflight-v6.dat");
    }
    const std::string db = " --db '" + path.string() + "' ";
    auto q = [&](const std::string& sql, const std::string& extra = "") { return run(cli() + " query" + db + extra + " \"" + sql + "\"", true); };
    const auto out_file = scratch("vacuumed.db");
    std::filesystem::remove(out_file);
    for (const std::string& sql : {"VACUUM INTO '" + out_file.string() + "'", "ATTACH '" + scratch("attached.db").string() + "' AS x",
                                   std::string("SELECT hex(fts3_tokenizer('simple'))"), std::string("PRAGMA journal_mode = DELETE"),
                                   std::string("PRAGMA user_version = 9"), std::string("INSERT INTO sessions (name) VALUES ('x')"),
                                   std::string("CREATE TABLE t (x)"), std::string("BEGIN IMMEDIATE")}) {
        INFO(sql);
        auto r = q(sql);
        CHECK(r.status == 2);
        CHECK(r.out.find("not allowed") + r.out.find("only reading") != 2 * std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(out_file));
    CHECK_FALSE(std::filesystem::exists(scratch("attached.db")));
    // reading pragmas and a trailing comment are fine
    CHECK(q("PRAGMA user_version").out == "user_version\n" + std::to_string(storage::kSchemaVersion) + "\n");
    CHECK(q("SELECT 1 AS one; -- the answer\n/* done */").out == "one\n1\n");
    // an endless recursive query: the first rows stream out at once, a limit ends it
    // quietly, a timeout with an error; memory stays flat either way (never collected)
    const std::string endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c";
    auto limited = q(endless, "--limit 5");
    CHECK(limited.status == 0);
    CHECK(limited.out == "x\n1\n2\n3\n4\n5\n");
    auto timed = q("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", "--timeout 0.3");
    CHECK(timed.status == 2);
    CHECK(timed.out.find("time limit of 0.3 s") != std::string::npos);
    CHECK(q("SELECT 1", "--limit 0").status == 64);
    CHECK(q("SELECT 1", "--timeout -1").status == 64);
    CHECK(q("SELECT 1", "--timeout 0").out == "1\n1\n");  // 0: no time limit
    // the same endless count with no option at all: the default limit ends it (it ran
    // until killed before)
    auto by_default = q("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c");
    CHECK(by_default.status == 2);
    CHECK(by_default.out.find("stopped at the time limit of 30 s") != std::string::npos);
    // a statement whose memory grows (a 23 MB string): stopped at the memory limit, named
    const std::string growing = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 3000000) SELECT length(group_concat(x)) FROM c";
    auto capped = q(growing, "--memory 16");
    CHECK(capped.status == 2);
    CHECK(capped.out.find("stopped at the memory limit of 16 MiB") != std::string::npos);
    CHECK(q(growing, "--memory 64").out == "length(group_concat(x))\n22888895\n");  // 3 M numbers and their commas
    CHECK(q("SELECT 1", "--memory -1").status == 64);
    // --json keeps SQLite's types, as sqlite3 -json does: numbers, null, text, blobs as hex
    CHECK(q("SELECT 14 AS samples, 2.5 AS r, NULL AS n, 'x y' AS t, x'00ff' AS b, '14' AS s", " --json").out ==
          "[{\"samples\":14,\"r\":2.5,\"n\":null,\"t\":\"x y\",\"b\":\"00ff\",\"s\":\"14\"}]\n");
    // a read leaves the directory as it found it
    CHECK_FALSE(std::filesystem::exists(path.string() + "-wal"));
    CHECK_FALSE(std::filesystem::exists(path.string() + "-shm"));
}

TEST_CASE("processes creating the same new database at once all succeed", "[storage][concurrency]") {
    // Four imports of four small captures into one file that does not exist yet: each
    // creates or migrates it, then waits for the write lock in turn.
    const char* captures[] = {"pit.dat", "xapic.dat", "pvspin.dat", "lost.dat"};
    for (int trial = 0; trial < 4; ++trial) {
        auto path = fresh_db("race-" + std::to_string(trial) + ".db");
        std::string cmd;
        for (const char* c : captures)
            cmd += cli() + " import --db '" + path.string() + "' '" + sample(c) + "' >/dev/null 2>>'" + path.string() + ".err' & ";
        cmd += "wait";
        std::filesystem::remove(path.string() + ".err");
        run(cmd);
        // No error on stderr: only import's own notes ("… is being written by …; waiting",
        // a slow step's time), never "irqflow: <error>"
        std::string problems;
        std::istringstream err(read_file(path.string() + ".err"));
        for (std::string line; std::getline(err, line);)
            if (line.rfind("irqflow import: ", 0) != 0) problems += line + "\n";
        INFO("trial " << trial << ": " << problems);
        CHECK(problems.empty());
        Database d(path.string(), Database::Mode::ReadOnly);
        CHECK(d.schema_version() == storage::kSchemaVersion);
        CHECK(d.sessions().size() == 4);
    }
}

TEST_CASE("a second importer waits for the first, saying which process holds the lock", "[storage][concurrency]") {
    auto path = fresh_db("lock-wait.db");
    Database holder(path.string(), Database::Mode::ReadWrite);
    REQUIRE(sqlite3_exec(holder.handle(), "BEGIN IMMEDIATE; INSERT INTO sessions (name, source, source_sha256) VALUES ('w', 'w', 'w')",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    // The import runs in the background while this process holds the write lock, until
    // the importer has said that it waits (or 60 s: it must not have given up by then).
    const auto err = scratch("lock-wait.err");
    const std::string cmd = cli() + " import --db '" + path.string() + "' '" + sample("pit.dat") + "' >/dev/null 2>'" + err.string() +
                            "'; echo $? > '" + err.string() + ".rc'";
    std::filesystem::remove(err.string());
    std::filesystem::remove(err.string() + ".rc");
    std::thread importer([&] { run(cmd); });
    bool waiting = false;
    for (int i = 0; i < 600 && !waiting && !std::filesystem::exists(err.string() + ".rc"); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        waiting = std::filesystem::exists(err.string()) && read_file(err.string()).find("is being written by") != std::string::npos;
    }
    CHECK(waiting);
    CHECK_FALSE(std::filesystem::exists(err.string() + ".rc"));  // still waiting, not failed
    REQUIRE(sqlite3_exec(holder.handle(), "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
    importer.join();
    CHECK(read_file(err.string() + ".rc") == "0\n");
    CHECK(read_file(err.string()).find("is being written by pid " + std::to_string(getpid())) != std::string::npos);
    Database d(path.string(), Database::Mode::ReadOnly);
    CHECK(one(d, "SELECT count(*) FROM sessions") == "2");
}

TEST_CASE("a database that fails its integrity check is refused by the GUI with the reason", "[storage][bad-input]") {
    auto path = fresh_db("damaged.db");
    {
        Database d(path.string(), Database::Mode::ReadWrite);
        import_sample(d, "pit.dat");
    }
    // Break the b-tree header of one index's root page (its page type): the file still
    // opens and the tables a session load reads are intact, only a check finds it.
    std::int64_t page = 0, page_size = 0;
    {
        Database d(path.string(), Database::Mode::ReadOnly);
        page = std::stoll(one(d, "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'interrupts' LIMIT 1"));
        page_size = std::stoll(one(d, "PRAGMA page_size"));
    }
    std::string bytes = read_file(path.string());
    bytes[static_cast<std::size_t>((page - 1) * page_size)] = 0x07;  // not one of 2, 5, 10, 13
    write_file(path, bytes);
    Database d(path.string(), Database::Mode::ReadOnly);
    CHECK_THROWS_WITH(d.verify(), Catch::Contains(path.string()) && Catch::Contains("damaged database"));
    if (run("command -v xvfb-run").status == 0) {
        auto r = run_gui("--screenshot /dev/null '" + path.string() + "'");
        CHECK(r.status == 2);
        CHECK(r.out.find("damaged database") != std::string::npos);
    }
}

TEST_CASE("the SHA-256 that recognises a trace imported twice is the standard one", "[storage]") {
    // FIPS 180-4 examples
    CHECK(storage::sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(storage::sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const auto file = scratch("sha-input.bin");
    write_file(file.string(), std::string(3 << 20, 'a'));  // over the 1 MiB read buffer
    CHECK(storage::sha256_file(file.string()) == storage::sha256(std::string(3 << 20, 'a')));
    CHECK_THROWS_WITH(storage::sha256_file(scratch("no-such-file").string()), Catch::Contains("cannot open"));
}

TEST_CASE("sessions shows one placeholder for an unknown host, whether the trace says \"(none)\" or nothing", "[storage][cli]") {
    const auto db = scratch("hosts.db");
    std::filesystem::remove(db);
    REQUIRE(run(cli() + " import '" + sample("pveoi-on.dat") + "' --db '" + db.string() + "'").status == 0);  // uname nodename "(none)"
    const auto text = scratch("hosts-pveoi-on.txt");
    write_file(text, run("trace-cmd report '" + sample("pveoi-on.dat") + "'").out);  // no host at all
    REQUIRE(run(cli() + " import '" + text.string() + "' --db '" + db.string() + "'").status == 0);
    const auto out = run(cli() + " sessions --db '" + db.string() + "'").out;
    CHECK(out.find("(none)") == std::string::npos);
    CHECK(run(cli() + " query --db '" + db.string() + "' \"SELECT count(*) FROM sessions WHERE host_name IS NULL\" --csv").out.find("2") !=
          std::string::npos);
}
