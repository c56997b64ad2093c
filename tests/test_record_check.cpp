// `irqflow record --check` (ui/README.md, "Live check"): on this host, what needs no
// guest; on real runs, what samples/make-captures.sh's livecheck and failfast variants
// recorded inside L1 with this tree's irqflow — its live findings, the trace.dat it wrote
// and what `irqflow check` says of that file.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "helpers.hpp"
#include "record_helpers.hpp"
#include "zst_sample.hpp"

using namespace irqflow::test;
using Json = nlohmann::json;

namespace {

// A sample kept compressed (make-captures.sh zstd's the raw v6 files irqflow writes),
// inflated into the scratch directory.
std::string inflated(const std::string& name) {
    const auto out = scratch(name);
    REQUIRE(inflate_zst(sample(name + ".zst"), out.string()));
    return out.string();
}

std::vector<Json> ndjson(const std::string& text) {
    std::vector<Json> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.push_back(Json::parse(l));
    return v;
}

}  // namespace

TEST_CASE("record --check in a real run: the live findings and statistics are the offline check's of the file it wrote", "[record][samples]") {
    const auto live = ndjson(read_file(sample("livecheck-live.ndjson")));
    REQUIRE(!live.empty());
    const Json& end = live.back();
    REQUIRE(end.contains("summary"));
    CHECK(end["input"]["format"] == "live ring buffer (irqflow record)");
    const auto dat = inflated("livecheck.dat");
    const auto off = run(cli() + " check --json '" + dat + "'");
    REQUIRE((off.status == 0 || off.status == 1));
    const Json offline = Json::parse(off.out);
    // the findings, line for line (this run had none; the fail-fast run below has one)
    Json findings = Json::array();
    for (std::size_t i = 0; i + 1 < live.size(); ++i) findings.push_back(live[i]);
    CHECK(findings == offline["findings"]);
    CHECK(end["not_judged"] == offline["not_judged"]);
    // Every statistic but one: events a vCPU's thread emitted before its first entry.
    // The offline check knows the thread is that vCPU's from the start; live, an AP's
    // thread names its vCPU seconds after its first events (slow L1 boot), long after
    // they left the look-ahead unattributed — so they are not counted as events of a
    // vCPU whose state was unknown (unsynced) either.
    Json a = end["summary"], b = offline["summary"];
    CHECK(a["unsynced_events"].get<long>() <= b["unsynced_events"].get<long>());
    a.erase("unsynced_events");
    b.erase("unsynced_events");
    CHECK(a == b);
    CHECK(b["injections_checked"].get<long>() > 2000);  // a real run's worth was judged
    // the clock the live merge relies on is the one the file names
    CHECK(run(cli() + " check '" + dat + "'").out.find("clock mono;") != std::string::npos);
    // what the recorder said of the same run: every event it read was kept
    const std::string log = read_file(sample("livecheck-record.log"));
    CHECK(log.find("irqflow record: wrote /out/livecheck.dat: ") != std::string::npos);
    CHECK(log.find(" events from 2 CPUs, 0 lost") != std::string::npos);
}

TEST_CASE("record --check --fail-fast stops the run at the first finding, freezes the guest and leaves a trace.dat check confirms",
          "[record][samples]") {
    const auto live = ndjson(read_file(sample("failfast-live.ndjson")));
    REQUIRE(live.size() == 2);  // the finding, then the summary
    const Json& f = live.front();
    CHECK(f["rule"] == "VECTOR-ILLEGAL");  // the guest's IPI of vector 0x0f (samples/illegal-ipi.c)
    CHECK(f["observed"] == "accept of vector 0x0f");
    CHECK(live.back()["summary"]["findings"] == 1);
    const auto dat = inflated("failfast.dat");
    const auto off = run(cli() + " check --json '" + dat + "'");
    CHECK(off.status == 1);
    const Json offline = Json::parse(off.out);
    REQUIRE(offline["findings"].size() == 1);
    CHECK(offline["findings"][0] == f);
    // the recording ended soon after the fault: its last event within 1 s of the finding's
    const auto last = run(cli() + " events --json '" + dat + "' | tail -1").out;
    const auto last_ns = Json::parse(last)["ts_ns"].get<long long>();
    CHECK(last_ns > f["ts_ns"].get<long long>());
    CHECK(last_ns - f["ts_ns"].get<long long>() < 1000000000LL);
    // --on-finding stop froze QEMU (and the timeout around it) before the workload ended
    const std::string log = read_file(sample("failfast-record.log"));
    CHECK(log.find("irqflow record: stopped at the first finding: pid ") != std::string::npos);
    CHECK(log.find("irqflow record: ended at the first root finding (--fail-fast)") != std::string::npos);
    const std::string serial = read_file(sample("failfast-serial.log"));
    CHECK(serial.find("illegal-ipi: sent vector 0x0f to APIC id 1") != std::string::npos);
    CHECK(serial.find("irqflow-workload: done") == std::string::npos);
    // --on-finding-exec got the same finding on its standard input
    CHECK(Json::parse(read_file(sample("failfast-hook.json"))) == f);
}

TEST_CASE("record --check on this host checks what it records (its summary last) and refuses options that need it",
          "[cli][record]") {
    auto r = run(cli() + " record --json -o /tmp/irqflow-x.dat --duration 1", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("need --check") != std::string::npos);
    r = run(cli() + " record --check --on-finding stop -o /tmp/irqflow-x.dat --duration 1", true);
    CHECK(r.status == 64);
    CHECK(r.out.find("-- CMD or --pid PID") != std::string::npos);
    r = run(cli() + " record --check --on-finding freeze -o /tmp/irqflow-x.dat --duration 1", true);
    CHECK(r.status == 64);
    if (!recording_possible()) {
        WARN("not root or no kvm tracepoints: live recording test skipped");
        return;
    }
    const auto out = scratch("live-check.dat"), err = scratch("live-check.err"), json = scratch("live-check.ndjson");
    const auto rec = record("--check --json -o " + out.string() + " --duration 1 -- sleep 0.3 > " + json.string(), err);
    CHECK(rec.status == 0);
    const auto lines = ndjson(read_file(json));
    REQUIRE(!lines.empty());
    CHECK(lines.back()["input"]["format"] == "live ring buffer (irqflow record)");
    const auto off = run(cli() + " check --json '" + out.string() + "'");
    CHECK(Json::parse(off.out)["summary"] == lines.back()["summary"]);
    CHECK(run(cli() + " check '" + out.string() + "'").out.find("clock mono;") != std::string::npos);
    CHECK(read_file(err).find("wrote " + out.string() + ": ") != std::string::npos);
    check_nothing_left(rec, out);
    // a command that cannot run: as without --check
    const auto bad = record("--check -o " + out.string() + " -- /nonexistent/command", err);
    CHECK(bad.status == 127);
    check_nothing_left(bad, out);
}
