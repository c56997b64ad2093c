// The fleet database against the embedded one (storage/README.md, "PostgreSQL"): import
// events/s of the same session into an SQLite file and into a PostgreSQL server in the
// same run, then S sessions in the server and the time of each documented view across
// them. Prints figures; asserts nothing. bench_fleet.sh starts a throwaway server.
//
//   bench_fleet URI [--events N] [--sessions S]     (default: 2 M events, 50 sessions)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/store.hpp"
#include "repeat_trace.hpp"

using Clock = std::chrono::steady_clock;
using namespace irqflow;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
    std::size_t target = 2'000'000, sessions = 50;
    std::string uri;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--sessions" && i + 1 < argc) sessions = std::strtoull(argv[++i], nullptr, 10);
        else uri = a;
    }
    if (!storage::is_postgres_uri(uri)) {
        std::fprintf(stderr, "usage: bench_fleet postgresql://… [--events N] [--sessions S]\n");
        return 64;
    }
    const Trace base = load_trace(std::string(IRQFLOW_SAMPLES) + "/pveoi-on.dat");
    const Trace big = bench::repeat_trace(base, target);
    replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = replay::replay(big, o);
    const double n = static_cast<double>(big.events.size());

    const std::string file = (std::filesystem::temp_directory_path() / "irqflow-bench-fleet.db").string();
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(file + ext);
    double lite_s = 0;
    {
        const auto lite = storage::open_store(file, storage::Store::Mode::ReadWrite);
        const auto t0 = Clock::now();
        lite->import_session("bench", big, "bench-0", r, nullptr);
        lite_s = seconds_since(t0);
    }
    std::filesystem::remove(file);
    const auto pg = storage::open_store(uri, storage::Store::Mode::ReadWrite);
    for (const auto& s : pg->sessions()) pg->remove_session(std::to_string(s.id));
    double first_s = 0, all_s = 0;
    const auto t_all = Clock::now();
    for (std::size_t k = 0; k < sessions; ++k) {
        const auto t0 = Clock::now();
        pg->import_session("bench-" + std::to_string(k), big, "bench-" + std::to_string(k), r, nullptr);
        if (k == 0) first_s = seconds_since(t0);
    }
    all_s = seconds_since(t_all);
    std::printf("import of one %zu-event session (+%zu interrupts, %zu IPIs):\n", big.events.size(), r.interrupts.size(), r.ipis.size());
    std::printf("  SQLite file       %6.2f s  %5.2f M events/s\n", lite_s, n / lite_s / 1e6);
    std::printf("  PostgreSQL (COPY) %6.2f s  %5.2f M events/s  (%.2f x SQLite's rate)\n", first_s, n / first_s / 1e6, lite_s / first_s);
    std::printf("  PostgreSQL, %zu sessions: %.1f s, %.2f M events/s (%.0f M events in all)\n", sessions, all_s, n * static_cast<double>(sessions) / all_s / 1e6,
                n * static_cast<double>(sessions) / 1e6);
    // the documented views (storage/SCHEMA.md), across all sessions and for one
    const std::string one = std::to_string(pg->sessions().at(sessions / 2).id);
    const std::pair<const char*, std::string> views[] = {
        {"sessions (listing)", "SELECT * FROM sessions"},
        {"pv_eoi_hit_rate", "SELECT * FROM pv_eoi_hit_rate"},
        {"exits_per_reason, all", "SELECT reason_name, sum(exits) FROM exits_per_reason GROUP BY reason_name"},
        {"exits_per_reason, one", "SELECT * FROM exits_per_reason WHERE session = " + one},
        {"latency_per_vector, all", "SELECT vector, stage, sum(samples) FROM latency_per_vector GROUP BY vector, stage"},
        {"latency_per_vector, one", "SELECT * FROM latency_per_vector WHERE session = " + one},
        {"ipi_fanout, all", "SELECT kind, vector, destinations, sum(ipis), sum(mismatched) FROM ipi_fanout GROUP BY kind, vector, destinations"},
        {"ipi_fanout, one", "SELECT * FROM ipi_fanout WHERE session = " + one},
        {"findings_with_evidence", "SELECT * FROM findings_with_evidence"},
        {"session_rates, one", "SELECT * FROM session_rates WHERE session = " + one},
        {"session_rates, all", "SELECT * FROM session_rates"},
        {"session_diffs, a pair", "SELECT * FROM session_diffs WHERE a_session = " + one + " AND b_session = " + std::to_string(std::stoll(one) + 1)},
        {"exits, one vCPU of one", "SELECT count(*), sum(host_ns) FROM exits WHERE session = " + one + " AND vcpu = 0"},
        {"intervals, one", "SELECT state, sum(end_ns - start_ns) FROM intervals WHERE session = " + one + " GROUP BY state"},
    };
    const auto reader = storage::open_store(uri, storage::Store::Mode::ReadOnly);
    for (const auto& [name, sql] : views) {
        double best = 1e30;
        std::size_t rows = 0;
        for (int k = 0; k < 3; ++k) {
            const auto q0 = Clock::now();
            rows = reader->query(sql).rows.size();
            best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - q0).count());
        }
        std::printf("view %-26s %6zu rows %9.1f ms\n", name, rows, best);
    }
    return 0;
}
