// The CLI's help and argument validation (CLI11), driving the real binary: every
// command has --help with examples, bad values are refused with the valid ones and
// exit 64, and nothing is created or renamed behind the user's back.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

#include "helpers.hpp"

using namespace irqflow::test;

namespace {
const char* kCommands[] = {"events", "stats", "check", "predict", "import", "sessions", "query", "rm", "record"};
}

TEST_CASE("every command has --help with its options and examples, and help CMD prints the same", "[cli][usage]") {
    for (const char* c : kCommands) {
        INFO(c);
        auto h = run(cli() + " " + c + " --help");
        CHECK(h.status == 0);
        CHECK(h.out.find(std::string("Usage: irqflow ") + c) != std::string::npos);
        CHECK(h.out.find("Examples:") != std::string::npos);
        CHECK(run(cli() + " help " + c).out == h.out);
    }
    auto top = run(cli() + " --help");
    CHECK(top.status == 0);
    for (const char* c : kCommands) CHECK(top.out.find(std::string("  ") + c + " ") != std::string::npos);
    CHECK(top.out.find("Exit codes:") != std::string::npos);
    auto v = run(cli() + " --version");
    CHECK(v.status == 0);
    CHECK(v.out.rfind("irqflow ", 0) == 0);
    // units are part of the help
    const auto rec = run(cli() + " record --help").out;
    CHECK(rec.find("--duration SECONDS") != std::string::npos);
    CHECK(rec.find("--buffer-kb KiB") != std::string::npos);
}

TEST_CASE("usage errors exit 64 and say what is valid", "[cli][usage]") {
    const std::string trace = "'" + sample("pveoi-on.dat") + "'";
    auto r = run(cli(), true);
    CHECK(r.status == 64);
    r = run(cli() + " frobnicate", true);
    CHECK(r.status == 64);
    r = run(cli() + " check " + trace + " --semantics 2013", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("--semantics: 2013 not in {auto,2012,current}") != std::string::npos);
    r = run(cli() + " check " + trace + " --frobnicate", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("--frobnicate") != std::string::npos);
    // a vCPU or event kind the trace cannot have is an error, not an empty listing
    r = run(cli() + " events " + trace + " --vcpu 9", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("--vcpu 9: " + sample("pveoi-on.dat") + " has vCPUs 0, 1, 2, 3") != std::string::npos);
    r = run(cli() + " events " + trace + " --vcpu 010", true);  // decimal: ten, not octal eight
    CHECK(r.status == 64);
    CHECK(r.out.find("--vcpu 10:") != std::string::npos);
    r = run(cli() + " events " + trace + " --vcpu -1", true);
    CHECK(r.status == 64);
    r = run(cli() + " events " + trace + " --kind kvm_nosuch", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("--kind kvm_nosuch: no such event;") != std::string::npos);
    CHECK(r.out.find("kvm_inj_virq") != std::string::npos);
    // a kind irqflow knows that this capture lacks is fine: nothing to print
    r = run(cli() + " events " + trace + " --kind kvm_hv_send_ipi");
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(run(cli() + " events " + trace + " --vcpu 2 --kind inj_virq").out.find("kvm_inj_virq") != std::string::npos);
    r = run(cli() + " query --db x.db 'SELECT 1' --csv --json", true);
    CHECK(r.status == 64);
    r = run(cli() + " record --duration 1", true);  // -o missing
    CHECK(r.status == 64);
    CHECK(r.out.find("--output is required") != std::string::npos);
    // a first word that is no command is named, with the commands there are
    r = run(cli() + " bogus", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("irqflow: unknown command 'bogus'; the commands: events, stats, check,") != std::string::npos);
    CHECK(r.out.find("record, help\n") != std::string::npos);
    r = run(cli() + " chek " + trace, true);
    CHECK(r.status == 64);
    CHECK(r.out.find("unknown command 'chek'") != std::string::npos);
}

TEST_CASE("a database that does not exist is refused, not created, by sessions, query and rm", "[cli][usage]") {
    const auto typo = scratch("tyop.db");
    std::filesystem::remove(typo);
    for (const std::string& c : {" sessions --db '" + typo.string() + "'", " query --db '" + typo.string() + "' 'SELECT 1'",
                                " rm --db '" + typo.string() + "' 1"}) {
        INFO(c);
        auto r = run(cli() + c, true);
        CHECK(r.status == 64);
        CHECK(r.out.find("no database " + typo.string() + " (irqflow import creates one)") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(typo));
    }
}

TEST_CASE("import: a chosen --name that is taken is refused, a default name gets a suffix and says so", "[cli][usage][storage]") {
    const auto db = scratch("names.db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + ext);
    const std::string to = " --db '" + db.string() + "' ";
    REQUIRE(run(cli() + " import" + to + "'" + sample("pit.dat") + "' --name mine").status == 0);
    auto r = run(cli() + " import" + to + "'" + sample("xapic.dat") + "' --name mine", true);
    CHECK(r.status == 2);
    CHECK(r.out.find("a session is already named \"mine\" (session 1)") != std::string::npos);
    // Default names come from the file's name: two different captures both called x.dat.
    const auto a = scratch("a"), b = scratch("b");
    std::filesystem::create_directories(a);
    std::filesystem::create_directories(b);
    std::filesystem::copy_file(sample("xapic.dat"), a / "x.dat", std::filesystem::copy_options::overwrite_existing);
    std::filesystem::copy_file(sample("lost.dat"), b / "x.dat", std::filesystem::copy_options::overwrite_existing);
    REQUIRE(run(cli() + " import" + to + "'" + (a / "x.dat").string() + "'").status == 0);
    r = run(cli() + " import" + to + "'" + (b / "x.dat").string() + "'", true);
    CHECK(r.status == 0);
    CHECK(r.out.find("named it \"x.dat-2\": a session is already named \"x.dat\"") != std::string::npos);
    r = run(cli() + " import" + to + "'" + sample("pvspin.dat") + "' --name x.dat-2", true);
    CHECK(r.status == 2);
    const auto s = run(cli() + " sessions" + to + "--json").out;
    for (const char* n : {"\"name\":\"mine\"", "\"name\":\"x.dat\"", "\"name\":\"x.dat-2\""}) CHECK(s.find(n) != std::string::npos);
    CHECK(s.find("pvspin") == std::string::npos);
}

TEST_CASE("irqflow-gui: --help with examples, bad options refused with exit 64 before any window", "[gui][usage]") {
    const std::string gui = std::string("'") + IRQFLOW_GUI + "'";
    auto h = run(gui + " --help");
    CHECK(h.status == 0);
    CHECK(h.out.find("Usage: irqflow-gui [OPTIONS] [TRACE|DB] [SESSION]") != std::string::npos);
    CHECK(h.out.find("--range A:B") != std::string::npos);
    CHECK(h.out.find("Examples:") != std::string::npos);
    CHECK(h.out.find("--print-view") == std::string::npos);  // a test hook, not for users
    const std::string trace = " '" + sample("pveoi-on.dat") + "'";
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"", "TRACE|DB is required"},
             {" --range 5:3" + trace, "--range: A:B with A < B, e.g. 12.5:13 or +4.5s:+4.7s"},
             {" --size 100x100" + trace, "--size: WxH pixels, W at least 200"},
             {" --tab nosuch" + trace, "--tab: nosuch not in {findings,statistics,latency,events,selection}"},
             {" --inspect 13" + trace, "--inspect: SECONDS:LANE"},
             {" --frobnicate" + trace, "--frobnicate"}}) {
        INFO(args);
        auto r = run(gui + args, true);  // no DISPLAY needed: refused before a window opens
        CHECK(r.status == 64);
        CHECK(r.out.find(says) != std::string::npos);
    }
}

TEST_CASE("TRACE from a pipe: - and /dev/stdin read standard input, errors name <stdin>, a perf.data is pointed to perf script", "[cli][pipe]") {
    const std::string dat = sample("pveoi-on.dat");
    const auto file = run(cli() + " stats --json '" + dat + "'");
    REQUIRE(file.status == 0);
    auto piped = run("cat '" + dat + "' | " + cli() + " stats --json -");
    CHECK(piped.status == 0);
    // the same statistics; only the source differs
    CHECK(piped.out.find("\"source\":\"<stdin>\"") != std::string::npos);
    const auto body = [](const std::string& j) { return j.substr(j.find(",\"format\"")); };
    CHECK(body(piped.out) == body(file.out));
    CHECK(run("cat '" + dat + "' | " + cli() + " stats --json /dev/stdin").out.find("\"records\":136750") != std::string::npos);
    // report text through a pipe, as people paste it
    auto text = run("trace-cmd report '" + dat + "' 2>/dev/null | head -2000 | " + cli() + " events - --kind kvm_exit | wc -l");
    CHECK(std::stoi(text.out) > 100);
    auto bad = run("printf 'not a trace\\n' | " + cli() + " check -", true);
    CHECK(bad.status == 2);
    CHECK(bad.out.rfind("irqflow: <stdin>: ", 0) == 0);
    // perf record's file: say what to run instead
    const auto perf = scratch("perf.data");
    write_file(perf, std::string("PERFILE2") + std::string(200, '\0'));
    bad = run(cli() + " check '" + perf.string() + "'", true);
    CHECK(bad.status == 2);
    CHECK(bad.out.find("a perf.data file; irqflow reads its text: perf script -i " + perf.string()) != std::string::npos);
    // a stored pipe keeps the name the user gave
    const auto db = scratch("piped.db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + ext);
    REQUIRE(run("cat '" + dat + "' | " + cli() + " import --db '" + db.string() + "' -").status == 0);
    const auto s = run(cli() + " sessions --json --db '" + db.string() + "'").out;
    CHECK(s.find("\"name\":\"stdin\"") != std::string::npos);
    CHECK(s.find("\"source\":\"<stdin>\"") != std::string::npos);
}

TEST_CASE("JSON: one library for every command, an unknown vm or vcpu is null as in SQL, never -1", "[cli][json]") {
    const std::string trace = " '" + sample("pveoi-on.dat") + "'";
    for (const std::string& cmd : {" stats --json" + trace, " check --json" + trace, " predict --json" + trace}) {
        INFO(cmd);
        auto r = run(cli() + cmd);
        CHECK(nlohmann::json::accept(r.out));
    }
    // events: one object per line; events of threads that run no vCPU have vcpu null
    auto r = run(cli() + " events --json" + trace);
    std::size_t nulls = 0, lines = 0;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line); ++lines) {
        const auto j = nlohmann::json::parse(line);
        CHECK_FALSE((j["vm"].is_number() && j["vm"] == -1));
        CHECK_FALSE((j["vcpu"].is_number() && j["vcpu"] == -1));
        nulls += j["vcpu"].is_null();  // an I/O thread of the VM: its vm is known, no vcpu
    }
    CHECK(lines == 136750);
    CHECK(nulls > 0);
}

TEST_CASE("rm gives the space back when most of the file is free, and what remains stays whole", "[cli][storage]") {
    const auto db = scratch("shrink.db");
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + ext);
    const std::string to = " --db '" + db.string() + "' ";
    REQUIRE(run(cli() + " import" + to + "'" + sample("pit.dat") + "'").status == 0);
    REQUIRE(run(cli() + " import" + to + "'" + sample("xapic.dat") + "'").status == 0);
    const auto full = std::filesystem::file_size(db);
    auto r = run(cli() + " rm" + to + "2");
    CHECK(r.status == 0);
    CHECK(r.out.find(" MB -> ") != std::string::npos);
    CHECK(std::filesystem::file_size(db) < full * 3 / 4);
    CHECK_FALSE((std::filesystem::exists(db.string() + "-wal") && std::filesystem::file_size(db.string() + "-wal") > 0));
    // session 1 is all there
    const auto count = run(cli() + " query" + to + "\"SELECT count(*) FROM events WHERE session = 1\"").out;
    CHECK(count == "count(*)\n186452\n");
}

TEST_CASE("events name numeric fields as the kernel's print format does, next to the number", "[cli][events]") {
    const std::string trace = " '" + sample("xapic.dat") + "'";
    const auto text = run(cli() + " events" + trace).out;
    for (const char* s : {"dm=5(INIT) tm=0(edge)", "shorthand=3(all-but-self)", "kvm_apic rw=0(read) reg=0xf0(SPIV)",
                          "kvm_msr write=1(write)", "kvm_pio rw=1(out)", "kvm_mmio type=1(read)", "reason=2(IO) errno=0",
                          "reason=0(restart) errno=-4", "dest_mode=0(physical)", "exit_reason=0x400(EXIT_NPF)"}) {
        INFO(s);
        CHECK(text.find(s) != std::string::npos);
    }
    const auto json = run(cli() + " events --json --kind kvm_mmio" + trace).out;
    const auto first = nlohmann::json::parse(json.substr(0, json.find('\n')));
    CHECK(first["fields"]["type"] == 1);  // the number stays, the name comes beside it
    CHECK(first["names"]["type"] == "read");
}

TEST_CASE("events irqflow does not model print their info as trace-cmd report does, text and JSON", "[cli][events]") {
    const std::string trace = " '" + sample("xapic.dat") + "'";
    const auto text = run(cli() + " events --kind kvm_cpuid" + trace).out;
    CHECK(text.find("kvm_cpuid func 40000000 idx ") != std::string::npos);
    CHECK(text.find("raw_bytes") == std::string::npos);
    // kvm_emulate_insn is printed by libtraceevent's kvm plugin, as in trace-cmd report
    CHECK(run(cli() + " events --kind kvm_emulate_insn" + trace).out.find(" kvm_emulate_insn f0000:ec2f: 0f 20 c1\n") !=
          std::string::npos);
    const auto json = run(cli() + " events --json --kind kvm_fpu" + trace).out;
    const auto first = nlohmann::json::parse(json.substr(0, json.find('\n')));
    CHECK(first["info"] == "load");
}
