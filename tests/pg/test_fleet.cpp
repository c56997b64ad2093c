// The fleet database as a team uses it, through the real CLI against the real server:
// read-only queries, many importers at once, a killed import, a query during an import,
// push, rm, metadata (storage/README.md, "PostgreSQL").
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <sstream>
#include <thread>

#include "backends.hpp"
#include "pg/pg_store.hpp"
#include "helpers.hpp"
#include "storage_helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/storage/store.hpp"
#include "session_sink.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

// `s` quoted for the shell
std::string q(const std::string& s) {
    std::string out = "'";
    for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

storage::QueryResult rows(const std::string& uri, const std::string& sql) {
    const auto s = storage::open_store(uri, storage::Store::Mode::ReadOnly);
    return s->query(sql);
}

std::string cell(const std::string& uri, const std::string& sql) {
    const auto r = rows(uri, sql);
    REQUIRE(r.rows.size() == 1);
    return r.rows[0][0].value_or("NULL");
}

RunResult import(const std::string& uri, const std::string& sample_name, const std::string& extra = "") {
    return run(cli() + " import " + q(sample(sample_name)) + " --db " + q(uri) + " " + extra, true);
}

// `uri` (as the role irqflow) connecting as `role` instead.
std::string as_role(std::string uri, const std::string& role) {
    uri.replace(uri.find("user=irqflow"), 12, "user=" + role);
    return uri;
}

// The reader role of .ci/pg-server, given what README's fleet section grants it.
std::string reader_uri(const std::string& uri, const std::string& schema) {
    storage::PgConnection c(uri);
    c.exec("GRANT USAGE ON SCHEMA \"" + schema + "\" TO irqflow_reader; GRANT SELECT ON ALL TABLES IN SCHEMA \"" + schema + "\" TO irqflow_reader");
    return as_role(uri, "irqflow_reader");
}

// How many transactions made session `session`'s event tables in `schema` (a table's
// row type in pg_type keeps its maker's xid; ATTACH rewrites the pg_class and
// pg_attribute rows): one per COPY lane used.
std::string table_makers(const std::string& uri, const std::string& schema, int session) {
    return cell(uri, "SELECT count(DISTINCT t.xmin::text) FROM pg_type t JOIN pg_class c ON c.reltype = t.oid JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE n.nspname = '" + schema + "' AND c.relkind = 'r' AND c.relname LIKE 'kvm\\_%\\_s" + std::to_string(session) + "'");
}

}  // namespace

TEST_CASE("query on PostgreSQL cannot write: INSERT, DELETE, DDL, COPY TO PROGRAM, a second statement, a writing CTE", "[pg][fleet]") {
    const std::string uri = pg_schema_uri("readonly");
    REQUIRE(import(uri, "pveoi-on-midflight-v6.dat").status == 0);
    const auto witness = scratch("copy-to-program-ran");
    std::filesystem::remove(witness);
    const std::string events = cell(uri, "SELECT count(*) FROM events");
    CHECK(events == "30998");
    const std::string reader = reader_uri(pg_server_uri(), "readonly") + "&options=-csearch_path%3Dreadonly";
    for (const auto& who : {uri, reader}) {
        INFO(who);
        for (const std::string& sql : std::vector<std::string>{
              "INSERT INTO sessions (name, source, source_sha256) VALUES ('x', 'x', 'x')", "DELETE FROM sessions", "UPDATE sessions SET name = 'x'",
              "TRUNCATE kvm_exit", "DROP TABLE kvm_exit", "CREATE TABLE x (a int)", "ALTER TABLE sessions ADD COLUMN x int",
              "COPY (SELECT 1) TO PROGRAM 'touch " + witness.string() + "'", "SELECT 1; DELETE FROM sessions",
              "SELECT 1) AS q; DELETE FROM sessions; SELECT (1", "WITH d AS (DELETE FROM sessions RETURNING id) SELECT * FROM d",
              "SELECT nextval(pg_get_serial_sequence('sessions', 'id'))", "SELECT pg_advisory_lock(1), lo_import('/etc/hostname')"}) {
            INFO(sql);
            const auto r = run(cli() + " query --db " + q(who) + " " + q(sql), true);
            CHECK(r.status == 2);
            CHECK(r.out.find("SQL error") != std::string::npos);
            CHECK(r.out.find("postgresql:///irqflow?") != std::string::npos);  // names the server
        }
        // reading works, for both
        const auto ok = run(cli() + " query --db " + q(who) + " 'SELECT name, event_count FROM sessions;' --csv", true);
        CHECK(ok.status == 0);
        CHECK(ok.out == "name,event_count\npveoi-on-midflight-v6.dat,30998\n");
    }
    CHECK_FALSE(std::filesystem::exists(witness));
    CHECK(cell(uri, "SELECT count(*) FROM events") == events);
    CHECK(cell(uri, "SELECT count(*) FROM sessions") == "1");
    // the reader role cannot import either: the server refuses it, irqflow says so
    const auto imp = import(reader, "xapic.dat");
    CHECK(imp.status == 2);
    CHECK(imp.out.find("permission denied") != std::string::npos);
    // JSON types numbers as numbers, limits and timeouts hold
    const auto j = run(cli() + " query --db " + q(uri) + " 'SELECT id, name, 0.5 AS half, NULL AS nothing FROM sessions' --json", true);
    CHECK(j.out == "[{\"id\":1,\"name\":\"pveoi-on-midflight-v6.dat\",\"half\":0.5,\"nothing\":null}]\n");
    CHECK(run(cli() + " query --db " + q(uri) + " 'SELECT record FROM events ORDER BY record' --limit 3", true).out == "record\n0\n1\n2\n");
    const auto slow = run(cli() + " query --db " + q(uri) + " 'SELECT pg_sleep(5)' --timeout 0.2", true);
    CHECK(slow.status == 2);
    CHECK(slow.out.find("time limit of 0.2 s") != std::string::npos);
    // an endless recursive count with no option: the default limit (statement_timeout)
    // ends it on the server too
    const auto endless = run(cli() + " query --db " + q(uri) + " 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c'", true);
    CHECK(endless.status == 2);
    CHECK(endless.out.find("stopped at the time limit of 30 s") != std::string::npos);
}

TEST_CASE("8 importers at once, of different traces and of the same trace: every trace stored once, none lost", "[pg][fleet][concurrency]") {
    const std::vector<std::string> traces = {"pveoi-on-midflight-v6.dat", "xapic.dat", "pvipi-off.dat", "lossy.dat"};
    const std::map<std::string, std::string> events = {
        {"pveoi-on-midflight-v6.dat", "30998"}, {"xapic.dat", "150406"}, {"pvipi-off.dat", ""}, {"lossy.dat", ""}};
    for (const bool same : {false, true}) {
        const std::string schema = same ? "same8" : "mixed8";
        const std::string uri = pg_schema_uri(schema);
        const auto dir = scratch(schema);
        std::filesystem::create_directories(dir);
        std::string script;
        for (int i = 0; i < 8; ++i) {
            const std::string t = same ? traces[1] : traces[static_cast<std::size_t>(i % 4)];
            script += "( " + cli() + " import " + q(sample(t)) + " --db " + q(uri) + " >" + (dir / std::to_string(i)).string() + " 2>&1; echo $? >" +
                      (dir / (std::to_string(i) + ".rc")).string() + " ) & ";
        }
        REQUIRE(run("bash -c " + q(script + "wait")).status == 0);
        int ok = 0, refused = 0;
        for (int i = 0; i < 8; ++i) {
            const std::string rc = read_file((dir / (std::to_string(i) + ".rc")).string());
            const std::string out = read_file((dir / std::to_string(i)).string());
            INFO(out);
            if (rc == "0\n") ++ok;
            else {
                CHECK(out.find("is already session") != std::string::npos);
                ++refused;
            }
        }
        const std::size_t distinct = same ? 1 : traces.size();
        CHECK(ok == static_cast<int>(distinct));
        CHECK(refused == 8 - static_cast<int>(distinct));
        CHECK(cell(uri, "SELECT count(*) FROM sessions") == std::to_string(distinct));
        CHECK(cell(uri, "SELECT count(DISTINCT source_sha256) FROM sessions") == std::to_string(distinct));
        // each stored whole: its events are as many as it says, and the views see it
        CHECK(cell(uri, "SELECT count(*) FROM sessions s WHERE event_count = (SELECT count(*) FROM events e WHERE e.session = s.id)") ==
              std::to_string(distinct));
        CHECK(cell(uri, "SELECT count(*) FROM session_rates") == std::to_string(distinct));
        CHECK(cell(uri, "SELECT event_count FROM sessions WHERE name = 'xapic.dat'") == "150406");
    }
}

TEST_CASE("kill -9 during a PostgreSQL import leaves no session and no rows, and the next writer drops any table of it", "[pg][fleet][crash]") {
    const std::string uri = pg_schema_uri("killed");
    const auto t0 = std::chrono::steady_clock::now();
    REQUIRE(import(uri, "xapic.dat").status == 0);
    const double full_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto tables = [&] { return std::stoll(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'killed'")); };
    const auto whole = tables();  // the shared tables and session 1's partitions
    REQUIRE(run(cli() + " rm --db " + q(uri) + " 1").status == 0);
    const auto empty = tables();
    CHECK(whole > empty);
    int killed_mid_import = 0;
    for (double fraction : {0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99}) {
        const pid_t pid = fork();
        if (pid == 0) {
            execl(IRQFLOW_CLI, IRQFLOW_CLI, "import", sample("xapic.dat").c_str(), "--db", uri.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(full_ms * fraction)));
        kill(pid, SIGKILL);
        int st = 0;
        waitpid(pid, &st, 0);
        INFO("killed after " << fraction * full_ms << " ms");
        const auto sessions = std::stoll(cell(uri, "SELECT count(*) FROM sessions"));
        const auto n = std::stoll(cell(uri, "SELECT count(*) FROM events"));
        if (sessions == 0) {
            CHECK(n == 0);
            // killed after the second COPY lane committed: its tables stay, attached to
            // nothing, until the next writer opens the database
            storage::open_store(uri, storage::Store::Mode::ReadWrite);
            CHECK(tables() == empty);
            killed_mid_import += WIFSIGNALED(st);
        } else {
            CHECK(n == 150406);  // complete, or not there at all
            CHECK(tables() == whole);
            REQUIRE(run(cli() + " rm --db " + q(uri) + " xapic.dat").status == 0);
        }
    }
    CHECK(killed_mid_import > 0);
    // the server rolled the killed ones back: the trace imports again
    CHECK(import(uri, "xapic.dat").status == 0);
}

TEST_CASE("a writer drops the tables a killed import's second lane left, and nothing else", "[pg][fleet][crash]") {
    const std::string uri = pg_schema_uri("leftovers");
    REQUIRE(import(uri, "pveoi-on-midflight-v6.dat").status == 0);
    storage::PgConnection c(uri), importer(uri);
    // what a killed import leaves (session 7007: its lock is free), what a running one has
    // made (session 8008: its lock is held), a table of the user's and a partition
    c.exec("CREATE TABLE kvm_exit_s7007 (LIKE kvm_exit); CREATE TABLE kvm_entry_s7007 (LIKE kvm_entry); CREATE TABLE kvm_exit_s8008 (LIKE kvm_exit); "
           "CREATE TABLE notes_s7007 (a int)");
    importer.exec("SELECT pg_advisory_lock(" + storage::pg_import_lock(8008) + ")");
    const auto exists = [&](const std::string& t) {
        return cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'leftovers' AND tablename = '" + t + "'") == "1";
    };
    storage::open_store(uri, storage::Store::Mode::ReadOnly);  // a reader drops nothing
    CHECK(exists("kvm_exit_s7007"));
    storage::open_store(uri, storage::Store::Mode::ReadWrite);
    CHECK_FALSE(exists("kvm_exit_s7007"));
    CHECK_FALSE(exists("kvm_entry_s7007"));
    CHECK(exists("kvm_exit_s8008"));
    CHECK(exists("notes_s7007"));
    CHECK(exists("kvm_exit_s1"));
    CHECK(cell(uri, "SELECT count(*) FROM events") == "30998");
    // the import ends without committing: its tables go at the next writer's open
    importer.exec("SELECT pg_advisory_unlock(" + storage::pg_import_lock(8008) + ")");
    REQUIRE(import(uri, "xapic.dat").status == 0);
    CHECK_FALSE(exists("kvm_exit_s8008"));
    CHECK(cell(uri, "SELECT count(*) FROM sessions") == "2");
}

TEST_CASE("an import that fails after its second lane committed drops that lane's tables itself", "[pg][fleet][crash]") {
    const std::string uri = pg_schema_uri("failed");
    const Trace t = load_trace(sample("xapic.dat"));
    const auto store = storage::open_store(uri, storage::Store::Mode::ReadWrite);
    const auto visible = [&](std::int64_t id) {
        return std::stoll(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'failed' AND tablename LIKE '%\\_s" + std::to_string(id) + "'"));
    };
    {
        auto sink = store->begin_session("failing", storage::SessionMeta(t.meta), "f00d", storage::NameClash::Refuse);
        for (const Event& e : t.events) sink->events().insert({e, std::nullopt, std::nullopt});
        sink->end_events();
        // lane 1 commits its tables once its last chunk is in (seen from here: lane 0's
        // are the import's own, uncommitted); then the import fails before its commit
        for (int i = 0; i < 200 && visible(sink->id()) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        REQUIRE(visible(sink->id()) > 0);
        CHECK(cell(uri, "SELECT count(*) FROM events") == "0");
    }
    CHECK(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'failed' AND tablename ~ '_s[0-9]+$'") == "0");
    CHECK(cell(uri, "SELECT count(*) FROM sessions") == "0");
}

TEST_CASE("an import whose second connection the server refuses keeps to one", "[pg][fleet]") {
    // a role allowed one connection (made by the test server's superuser)
    storage::PgConnection su(as_role(pg_server_uri(), "postgres"));
    su.exec("DROP SCHEMA IF EXISTS single CASCADE; DROP ROLE IF EXISTS irqflow_single; CREATE ROLE irqflow_single LOGIN CONNECTION LIMIT 1; "
            "CREATE SCHEMA single AUTHORIZATION irqflow_single");
    const std::string uri = as_role(pg_server_uri(), "irqflow_single") + "&options=-csearch_path%3Dsingle";
    const auto r = import(uri, "xapic.dat");
    INFO(r.out);
    REQUIRE(r.status == 0);
    // checked as the superuser: the role's one connection may still be counted by the
    // server for a moment after the import closed it (seen: "too many connections")
    const std::string checker = as_role(pg_server_uri(), "postgres") + "&options=-csearch_path%3Dsingle";
    CHECK(cell(checker, "SELECT count(*) FROM events") == "150406");
    CHECK(table_makers(checker, "single", 1) == "1");
    su.exec("DROP SCHEMA single CASCADE; DROP ROLE irqflow_single");
}

TEST_CASE("a PostgreSQL migration waits for the imports in flight and migrates their rows, and an import it overtook fails", "[pg][fleet][concurrency]") {
    const std::string uri = pg_schema_uri("migrating");
    REQUIRE(import(uri, "pvipi-off.dat").status == 0);
    pg_back_to_schema_7(uri);
    // an import of version 7 in flight: its sessions row and an IPI partition, not committed
    storage::PgConnection older(uri);
    older.exec("BEGIN; INSERT INTO sessions (id, name, source, source_sha256) VALUES (900, 'in-flight', 'x.dat', 'beef'); "
               "CREATE TABLE ipis_s900 (LIKE ipis INCLUDING DEFAULTS, CHECK (session IS NOT NULL AND session = 900)); "
               "INSERT INTO ipis_s900 (session, id, kind, vector, destinations, delivered) VALUES (900, 0, 'ICR write', 253, 2, 1), (900, 1, 'ICR write', 253, 2, 2); "
               "ALTER TABLE ipis ATTACH PARTITION ipis_s900 FOR VALUES IN (900)");
    std::atomic<bool> migrated{false};
    std::string error;
    std::thread writer([&] {
        try {
            storage::open_store(uri, storage::Store::Mode::ReadWrite);
            migrated = true;
        } catch (const std::exception& e) {
            error = e.what();
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    CHECK_FALSE(migrated);  // waiting for the import in flight
    older.exec("COMMIT");
    writer.join();
    REQUIRE(error.empty());
    CHECK(migrated);
    CHECK(cell(uri, "SELECT max(version) FROM irqflow_schema") == std::to_string(storage::kSchemaVersion));
    CHECK(cell(uri, "SELECT ipis || ' ' || mismatched FROM ipi_fanout WHERE session = 900") == "2 1");
    CHECK(cell(uri, "SELECT count(*) FROM ipi_counts WHERE session = 1") != "0");

    // an import whose store opened before a migration committed fails instead of writing
    // rows of the old shape (a newer irqflow's version, set by hand)
    const auto store = storage::open_store(uri, storage::Store::Mode::ReadWrite);
    storage::PgConnection(uri).exec("UPDATE irqflow_schema SET version = " + std::to_string(storage::kSchemaVersion + 1));
    CHECK_THROWS_WITH(import_sample(*store, "pveoi-on-midflight-v6.dat"),
                      Catch::Contains("migrated to version " + std::to_string(storage::kSchemaVersion + 1) + " while this import ran") &&
                          Catch::Contains("newer irqflow"));
    storage::PgConnection(uri).exec("UPDATE irqflow_schema SET version = " + std::to_string(storage::kSchemaVersion));
    CHECK(cell(uri, "SELECT count(*) FROM sessions") == "2");
}

TEST_CASE("a query during a PostgreSQL import answers and sees no part of the session", "[pg][fleet][concurrency]") {
    const std::string uri = pg_schema_uri("during");
    REQUIRE(import(uri, "pveoi-on-midflight-v6.dat").status == 0);
    const pid_t pid = fork();
    if (pid == 0) {
        execl(IRQFLOW_CLI, IRQFLOW_CLI, "import", sample("xapic.dat").c_str(), "--db", uri.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    int during = 0, after = 0;
    for (bool running = true; running;) {
        int st = 0;
        running = waitpid(pid, &st, WNOHANG) == 0;
        // --timeout: a query blocked behind the import's locks would fail here
        const auto r = run(cli() + " query --db " + q(uri) +
                               " 'SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM events), (SELECT count(*) FROM session_rates)' --csv --timeout 20",
                           true);
        REQUIRE(r.status == 0);
        INFO(r.out);
        CHECK((r.out.find("\n1,30998,1\n") != std::string::npos || r.out.find("\n2,181404,2\n") != std::string::npos));
        (running ? during : after) += 1;
        if (!running) CHECK(WIFEXITED(st));
        if (!running) CHECK(WEXITSTATUS(st) == 0);
    }
    CHECK(during > 0);
    CHECK(cell(uri, "SELECT count(*) FROM sessions") == "2");
}

TEST_CASE("push copies sessions with their metadata once: pushing again skips each, and what arrives is what was stored", "[pg][fleet]") {
    const auto file = fresh_store_location("sqlite", "push-from");
    // a serial log whose banner names the guest's kernel
    const auto serial = scratch("banner-serial.log");
    write_file(serial, "[    0.000000] Linux version 6.1.0-irqflow-test (gcc 12.2.0) #1 SMP\n" + read_file(sample("pveoi-on-serial.log")));
    REQUIRE(import(file, "pveoi-on.dat", "--serial " + q(serial.string()) + " --tag ci=nightly --tag tree=kvm-next --host host-a").status == 0);
    REQUIRE(import(file, "xapic.dat", "--qemu-cmdline 'qemu-system-x86_64 -smp 2'").status == 0);
    REQUIRE(import(file, "lost.dat").status == 0);
    CHECK(import(file, "pit.dat", "--tag oops").status == 64);
    CHECK(import(file, "pit.dat", "--tag a=1 --tag a=2").status == 64);
    const std::string uri = pg_schema_uri("pushed");
    // only the one named, then all: what is there is skipped
    auto first = run(cli() + " push --db " + q(file) + " --to " + q(uri) + " xapic.dat", true);
    CHECK(first.status == 0);
    CHECK(first.out.find("1 pushed, 0 already there") != std::string::npos);
    auto all = run(cli() + " push --db " + q(file) + " --to " + q(uri), true);
    CHECK(all.status == 0);
    CHECK(all.out.find("2 pushed, 1 already there") != std::string::npos);
    auto again = run(cli() + " push --db " + q(file) + " --to " + q(uri), true);
    CHECK(again.status == 0);
    CHECK(again.out.find("0 pushed, 3 already there") != std::string::npos);
    CHECK(run(cli() + " push --db " + q(file) + " --to " + q(uri) + " nope", true).status == 2);
    // the same rows, session by session (ids differ: matched by name)
    for (const std::string& sql : std::vector<std::string>{
             "SELECT s.name, s.event_count, s.host_name, s.guest_kernel, s.qemu_cmdline, s.host_kernel, s.semantics, s.first_ts_ns, s.last_ts_ns FROM sessions s ORDER BY s.name",
          "SELECT s.name, t.key, t.value FROM session_tags t JOIN sessions s ON s.id = t.session ORDER BY 1, 2",
          "SELECT s.name, (SELECT count(*) FROM interrupts i WHERE i.session = s.id), (SELECT count(*) FROM findings f WHERE f.session = s.id), "
          "(SELECT count(*) FROM serial_lines l WHERE l.session = s.id), (SELECT count(*) FROM gaps g WHERE g.session = s.id), "
          "(SELECT count(*) FROM exits x WHERE x.session = s.id AND x.host_ns IS NOT NULL) FROM sessions s ORDER BY 1",
          "SELECT s.name, x.exits, x.injections, x.eois, x.pv_eois FROM session_rates x JOIN sessions s ON s.id = x.session ORDER BY 1",
          "SELECT s.name, st.key, CAST(round(st.value * 1000) AS bigint) FROM stats st JOIN sessions s ON s.id = st.session ORDER BY 1, 2"}) {
        INFO(sql);
        const auto a = rows(file, sql), b = rows(uri, sql);
        REQUIRE(a.rows.size() == b.rows.size());
        for (std::size_t i = 0; i < a.rows.size(); ++i) {
            INFO("row " << i);
            CHECK(a.rows[i] == b.rows[i]);
        }
    }
    CHECK(cell(uri, "SELECT guest_kernel FROM sessions WHERE name = 'pveoi-on.dat'") == "6.1.0-irqflow-test");
    CHECK(cell(uri, "SELECT host_name FROM sessions WHERE name = 'pveoi-on.dat'") == "host-a");
    // the trace's own uname says "(none)" (no hostname was set): no host, as for text
    CHECK(cell(uri, "SELECT host_name FROM sessions WHERE name = 'lost.dat'") == "NULL");
}

TEST_CASE("rm on PostgreSQL drops the session's partitions, and a per-session query reads one partition", "[pg][fleet]") {
    const std::string uri = pg_schema_uri("partitions");
    REQUIRE(import(uri, "pveoi-on-midflight-v6.dat").status == 0);
    REQUIRE(import(uri, "xapic.dat").status == 0);
    const auto partitions = [&](int session) {
        return std::stoll(cell(uri, "SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                                    "WHERE n.nspname = 'partitions' AND c.relname LIKE '%\\_s" + std::to_string(session) + "'"));
    };
    // a partition for each table the session has rows in, and none for the others
    CHECK(partitions(1) >= 15);
    CHECK(cell(uri, "SELECT count(*) FROM kvm_hv_send_ipi WHERE session = 1") == "0");
    CHECK(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'partitions' AND tablename = 'kvm_hv_send_ipi_s1'") == "0");
    CHECK(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'partitions' AND tablename = 'kvm_exit_s1'") == "1");
    // xapic.dat's exits and entries each fill several COPY chunks: two lanes
    CHECK(table_makers(uri, "partitions", 2) == "2");
    CHECK(table_makers(uri, "partitions", 1) == "1");  // 31 k events: no table fills a chunk, one lane
    // the plan of a session's exits names its partition only
    storage::PgConnection c(uri);
    std::string plan;
    for (const auto& r : c.query("EXPLAIN SELECT count(*) FROM kvm_exit WHERE session = 2").rows) plan += r[0].value_or("") + "\n";
    INFO(plan);
    CHECK(plan.find("kvm_exit_s2") != std::string::npos);
    CHECK(plan.find("kvm_exit_s1") == std::string::npos);
    REQUIRE(run(cli() + " rm --db " + q(uri) + " pveoi-on-midflight-v6.dat").status == 0);
    CHECK(partitions(1) == 0);
    CHECK(cell(uri, "SELECT count(*) FROM pg_tables WHERE schemaname = 'partitions' AND tablename LIKE '%\\_s1'") == "0");
    CHECK(cell(uri, "SELECT count(*) FROM events WHERE session = 2") == "150406");
    CHECK(run(cli() + " rm --db " + q(uri) + " pveoi-on-midflight-v6.dat", true).status == 2);
    const auto listed = run(cli() + " sessions --db " + q(uri) + " --json", true);
    CHECK(listed.out.find("\"name\":\"xapic.dat\"") != std::string::npos);
    CHECK(listed.out.find("midflight") == std::string::npos);
}

TEST_CASE("a password in a --db URI never reaches the output", "[pg][fleet]") {
    const std::string uri = pg_schema_uri("password");
    // the test server trusts its socket: the password is not needed, and must not show
    std::string with = uri;
    with.replace(with.find("postgresql://"), 13, "postgresql://irqflow:s3cr3t@");
    const auto r = import(with, "pveoi-on-midflight-v6.dat");
    CHECK(r.status == 0);
    CHECK(r.out.find("s3cr3t") == std::string::npos);
    CHECK(r.out.find("postgresql://irqflow:***@") != std::string::npos);
    const auto bad = run(cli() + " query --db " + q(with) + " 'SELEC 1'", true);
    CHECK(bad.status == 2);
    CHECK(bad.out.find("s3cr3t") == std::string::npos);
}

TEST_CASE("the README's cross-host queries run on the fleet database", "[pg][fleet]") {
    const std::string uri = pg_schema_uri("readme");
    REQUIRE(import(uri, "pveoi-on.dat", "--host host-a --tag ci=nightly").status == 0);
    REQUIRE(import(uri, "pveoi-off.dat", "--host host-a").status == 0);
    REQUIRE(import(uri, "xapic.dat", "--host host-b").status == 0);
    // the SQL block of README's fleet section, a statement per line
    const std::string readme = read_file(std::string(IRQFLOW_SOURCE) + "/README.md");
    const auto section = readme.find("### A fleet database (PostgreSQL)");
    REQUIRE(section != std::string::npos);
    const auto from = readme.find("```sql\n", section), to = readme.find("```", from + 7);
    REQUIRE(from != std::string::npos);
    std::istringstream block(readme.substr(from + 7, to - from - 7));
    int queries = 0;
    for (std::string line; std::getline(block, line);) {
        if (line.rfind("--", 0) == 0 || line.empty()) continue;
        INFO(line);
        const auto r = run(cli() + " query --db " + q(uri) + " " + q(line), true);
        CHECK(r.status == 0);
        ++queries;
        if (queries == 1) CHECK(r.out.find("\t3\t") != std::string::npos);  // 3 sessions of one host kernel
    }
    CHECK(queries == 3);
}

TEST_CASE("irqflow-gui draws a session from the server as from the file", "[pg][fleet][gui]") {
    const std::string uri = pg_schema_uri("gui");
    const auto file = fresh_store_location("sqlite", "gui-file");
    for (const auto& db : {uri, file}) REQUIRE(import(db, "pveoi-on-midflight-v6.dat").status == 0);
    const auto from_server = scratch("gui-server.png"), from_file = scratch("gui-file.png");
    auto a = run_gui("--screenshot " + q(from_server.string()) + " --range 16.0:16.4 " + q(uri) + " pveoi-on-midflight-v6.dat", "", 120);
    auto b = run_gui("--screenshot " + q(from_file.string()) + " --range 16.0:16.4 " + q(file) + " 1", "", 120);
    INFO(a.out << b.out);
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    CHECK(read_file(from_server.string()).size() > 1000);
    CHECK(read_file(from_server.string()) == read_file(from_file.string()));
    // a session the server does not have is an error naming the server, without a window
    const auto none = run_gui("--screenshot /dev/null " + q(uri) + " nope", "", 120);
    CHECK(none.status == 2);
    CHECK(none.out.find("no session \"nope\"") != std::string::npos);
}
