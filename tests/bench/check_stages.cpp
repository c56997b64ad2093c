// `check` on a trace.dat, taken apart into its two stages (capture/README.md,
// "Streaming"): the decode stage reads the file twice — the attribution pass, then the
// pass that decodes every event on a thread of its own — and the replay stage replays
// the events the second pass hands over. Printed: each stage alone, and the streamed
// check itself (both at once, wall time), so bench_scale can show how close the
// pipelined check comes to its slower stage. Each the fastest of three rounds.
//
//   bench_check_stages TRACE.dat      prints "stages <events> <pass1 s> <pass2 s> <replay s> <check s>"
#include <algorithm>
#include <cstdio>
#include <string>

#include "clocks.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"

using irqflow::bench::thread_cpu_seconds;
using irqflow::bench::wall_seconds;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: bench_check_stages TRACE.dat\n");
        return 2;
    }
    const std::string file = argv[1];
    // Each figure is the fastest of kRounds: one run of this half-second work moves by a
    // third on a shared host within minutes.
    constexpr int kRounds = 3;
    double pass1 = 1e9, pass2 = 1e9, replay_cpu = 1e9, check = 1e9;
    std::uint64_t events = 0;
    std::size_t findings = 0;
    for (int round = 0; round < kRounds; ++round) {
        // The decode stage alone: both passes, the events handed to nobody.
        double t0 = wall_seconds();
        irqflow::TraceStream decode(file);
        pass1 = std::min(pass1, wall_seconds() - t0);
        events = 0;
        t0 = wall_seconds();
        decode.each_event([&](const irqflow::Event&) { ++events; });
        pass2 = std::min(pass2, wall_seconds() - t0);
        // The check as `irqflow check` streams it (a batch at a time); the replaying
        // thread's CPU time is the replay stage (the decoding thread feeds it; waiting for
        // a batch costs no CPU).
        t0 = wall_seconds();
        irqflow::TraceStream stream(file);
        irqflow::replay::StreamingReplay replay(stream.trace(), {});
        const double c0 = thread_cpu_seconds();
        stream.each_batch([&](std::span<const irqflow::Event> batch) { replay.feed(batch); });
        const auto result = replay.finish();
        replay_cpu = std::min(replay_cpu, thread_cpu_seconds() - c0);
        check = std::min(check, wall_seconds() - t0);
        findings = result.findings.size();
    }
    std::printf("stages %llu %.3f %.3f %.3f %.3f %zu\n", static_cast<unsigned long long>(events), pass1, pass2, replay_cpu, check, findings);
    return 0;
}
