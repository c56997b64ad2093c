// Replay throughput on one core: a real capture repeated until the stream holds
// ~10 M events (timestamps shifted so it stays ordered), replayed end to end.
//
//   bench_replay [--events N] [FILE]     (default: samples/pveoi-on.dat, 10 M events)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"

int main(int argc, char** argv) {
    std::size_t target = 10'000'000;
    std::string file = std::string(IRQFLOW_SAMPLES) + "/pveoi-on.dat";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--events" && i + 1 < argc) target = std::strtoull(argv[++i], nullptr, 10);
        else file = a;
    }
    const irqflow::Trace base = irqflow::load_trace(file);
    irqflow::Trace big = base;
    big.events.reserve(target + base.events.size());
    const std::int64_t span = base.events.back().ts.value() - base.events.front().ts.value() + 1000;
    for (int rep = 1; big.events.size() < target; ++rep)
        for (auto e : base.events) {
            e.ts = irqflow::TimestampNs(e.ts.value() + rep * span);
            e.record += static_cast<std::uint64_t>(rep) * base.events.size();
            big.events.push_back(e);
        }
    double best = 1e30;
    std::uint64_t findings = 0;
    for (int run = 0; run < 3; ++run) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = irqflow::replay::replay(big);
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        findings = r.findings.size();
    }
    std::printf("replay: %zu events (%s x%zu) in %.3f s on one core: %.1f M events/s (%llu findings)\n", big.events.size(),
                file.c_str(), big.events.size() / base.events.size(), best, static_cast<double>(big.events.size()) / best / 1e6,
                static_cast<unsigned long long>(findings));
    return 0;
}
