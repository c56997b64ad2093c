// Streaming (TraceStream + StreamingReplay, what `check` runs on a trace.dat) gives the
// same events, attribution and replay as loading the whole trace, on every sample.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"

using namespace irqflow;

namespace {

std::vector<std::string> samples() {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(IRQFLOW_SAMPLES))
        if (e.path().extension() == ".dat") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string digest(const replay::ReplayResult& r) {
    std::string s = std::to_string(r.findings.size()) + " findings;";
    for (const auto& f : r.findings) s += " " + std::to_string(f.record) + ":" + f.expected + "|" + f.observed;
    const auto& st = r.stats;
    s += "; events " + std::to_string(st.events) + " injections " + std::to_string(st.injections_checked) + "/" +
         std::to_string(st.injections) + " eois " + std::to_string(st.eois_checked) + "/" + std::to_string(st.eois) + " ipis " +
         std::to_string(st.ipis_checked) + " unsynced " + std::to_string(st.unsynced_events) + " gaps " + std::to_string(st.gaps) +
         " exits " + std::to_string(st.exits) + " saved " + std::to_string(st.exits_saved_pv_eoi) + " skew " +
         std::to_string(st.clock_skew_bound_ns);
    for (const auto& [v, l] : st.inject_to_eoi) s += " " + std::to_string(v) + ":" + std::to_string(l.p99);
    return s;
}

}  // namespace

TEST_CASE("a streamed trace.dat hands over the loaded trace's events and replays the same", "[capture][streaming][samples]") {
    for (const auto& path : samples()) {
        INFO(path);
        const Trace loaded = load_trace(path);
        TraceStream stream(path);
        const Trace& skeleton = stream.trace();
        CHECK(skeleton.events.empty());
        REQUIRE(skeleton.vms.size() == loaded.vms.size());
        for (std::size_t v = 0; v < loaded.vms.size(); ++v) {
            REQUIRE(skeleton.vms[v].vcpus.size() == loaded.vms[v].vcpus.size());
            for (std::size_t c = 0; c < loaded.vms[v].vcpus.size(); ++c) {
                CHECK(skeleton.vms[v].vcpus[c].tid == loaded.vms[v].vcpus[c].tid);
                CHECK(skeleton.vms[v].vcpus[c].apic == loaded.vms[v].vcpus[c].apic);
            }
            CHECK(skeleton.vms[v].other_threads == loaded.vms[v].other_threads);
        }
        CHECK(skeleton.drop_window_starts == loaded.drop_window_starts);
        CHECK(skeleton.meta.warnings == loaded.meta.warnings);

        replay::StreamingReplay streamed(skeleton);
        std::size_t i = 0, differing = 0;
        stream.each_event([&](const Event& e) {
            const Event l = i < loaded.events.size() ? loaded.events[i] : Event{};
            differing += !(e.ts == l.ts && e.record == l.record && e.kind == l.kind && e.tid == l.tid && e.vm == l.vm &&
                           e.vcpu == l.vcpu && e.present == l.present && e.f == l.f);
            streamed.feed(e);
            ++i;
        });
        CHECK(i == loaded.events.size());
        CHECK(differing == 0);
        CHECK(digest(streamed.finish()) == digest(replay::replay(loaded)));
    }
}

TEST_CASE("a consumer that throws stops the streaming decoder and its exception comes through", "[capture][streaming][samples]") {
    TraceStream stream(std::string(IRQFLOW_SAMPLES) + "/pvspin.dat");
    std::size_t seen = 0;
    CHECK_THROWS_WITH(stream.each_event([&](const Event&) {
        if (++seen == 20'000) throw std::runtime_error("consumer gave up");
    }),
                      "consumer gave up");
    CHECK(seen == 20'000);
    // and the stream can be read again from the start
    std::size_t all = 0;
    stream.each_event([&](const Event&) { ++all; });
    CHECK(all > seen);
}
