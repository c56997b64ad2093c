// Storage: import rows/s of a >= 10 M-event session (a real capture repeated) and the
// latency of each shipped view on it. Prints figures; asserts nothing.
//
//   bench_storage [--events N] [DB]      (default: a temp file, 10 M events)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "irqflow/capture/readers.hpp"
#include "repeat_trace.hpp"
#include "irqflow/replay/replay.hpp"
#include "irqflow/storage/database.hpp"

using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
    std::size_t target = 10'000'000;
    std::string db = (std::filesystem::temp_directory_path() / "irqflow-bench.db").string();
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
        else db = a;
    }
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(db + ext);
    const irqflow::Trace base = irqflow::load_trace(std::string(IRQFLOW_SAMPLES) + "/pveoi-on.dat");
    const irqflow::Trace big = irqflow::bench::repeat_trace(base, target);
    irqflow::replay::ReplayOptions o;
    o.collect_details = true;
    const auto r = irqflow::replay::replay(big, o);
    irqflow::storage::Database d(db, irqflow::storage::Database::Mode::ReadWrite);
    const auto t0 = Clock::now();
    const auto id = d.import_session("bench", big, "bench-" + std::to_string(big.events.size()), r, nullptr);
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("import: %zu events (+%zu interrupts, %zu IPIs) in %.2f s: %.2f M events/s into %s (%.0f MB)\n", big.events.size(),
                r.interrupts.size(), r.ipis.size(), secs, static_cast<double>(big.events.size()) / secs / 1e6, db.c_str(),
                static_cast<double>(std::filesystem::file_size(db)) / 1e6);
    const std::string s = std::to_string(id);
    const std::pair<const char*, std::string> views[] = {
        {"exits_per_reason", "SELECT * FROM exits_per_reason WHERE session = " + s},
        {"latency_per_vector", "SELECT * FROM latency_per_vector WHERE session = " + s},
        {"pv_eoi_hit_rate", "SELECT * FROM pv_eoi_hit_rate WHERE session = " + s},
        {"ipi_fanout", "SELECT * FROM ipi_fanout WHERE session = " + s},
        {"findings_with_evidence", "SELECT * FROM findings_with_evidence WHERE session = " + s},
    };
    irqflow::storage::Database ro(db, irqflow::storage::Database::Mode::ReadOnly);
    for (const auto& [name, sql] : views) {
        double best = 1e30;
        std::size_t rows = 0;
        for (int k = 0; k < 3; ++k) {
            const auto q0 = Clock::now();
            rows = ro.query(sql).rows.size();
            best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - q0).count());
        }
        std::printf("view %-24s %8zu rows  %8.2f ms\n", name, rows, best);
    }
    return 0;
}
