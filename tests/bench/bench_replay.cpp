// Replay throughput on one core: a real capture repeated until the stream holds
// ~10 M events (timestamps shifted so it stays ordered), replayed end to end.
//
//   bench_replay [--events N] [FILE]     (default: samples/pveoi-on.dat, 10 M events)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "irqflow/capture/readers.hpp"
#include "repeat_trace.hpp"
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
    const irqflow::Trace big = irqflow::bench::repeat_trace(base, target);
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
