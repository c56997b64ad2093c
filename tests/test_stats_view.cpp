// `irqflow stats`' perf-kvm-stat view: host time per exit reason, checked against the
// events themselves (exit → the same vCPU's next entry) on a real capture.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>

#include "helpers.hpp"
#include "irqflow/capture/exit_reasons.hpp"
#include "irqflow/capture/readers.hpp"

using namespace irqflow;
using namespace irqflow::test;

TEST_CASE("stats: per exit reason, the host time of each exit until its vCPU's next entry, as perf kvm stat shows it", "[cli][stats]") {
    const std::string path = sample("lost.dat");  // lost-event gaps: exits across one are not timed
    const Trace t = load_trace(path);
    struct Expect {
        std::uint64_t samples = 0;
        std::int64_t total = 0, min = INT64_MAX, max = 0;
    };
    std::map<std::string, Expect> want;  // over all vCPUs
    std::map<std::uint64_t, std::pair<std::string, std::int64_t>> open;  // vCPU → (reason, exit ts)
    std::uint64_t exits = 0;
    t.events.for_each([&](const Event& e) {
        if (e.kind == EventKind::Lost) open.clear();
        if (e.vcpu == kUnknownVcpu) return;
        const auto key = vm_vcpu_key(e.vm, e.vcpu);
        if (e.kind == EventKind::Exit) {
            ++exits;
            open[key] = {exit_reason_key(e.get(slot::exit_reason), e.get(slot::exit_isa).value_or(kIsaVmx)), e.ts.value()};
        } else if (e.kind == EventKind::Entry) {
            if (auto it = open.find(key); it != open.end()) {
                auto& w = want[it->second.first];
                const std::int64_t ns = e.ts.value() - it->second.second;
                ++w.samples;
                w.total += ns;
                w.min = std::min(w.min, ns);
                w.max = std::max(w.max, ns);
                open.erase(it);
            }
        }
    });
    REQUIRE(t.meta.format.find("trace.dat") == 0);
    REQUIRE_FALSE(want.empty());
    auto r = run(cli() + " stats --json '" + path + "'");
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    std::uint64_t timed = 0;
    for (const auto& [reason, w] : want) {
        INFO(reason);
        const auto& got = j["exit_time_by_reason"][reason];
        CHECK(got["samples"] == w.samples);
        CHECK(got["total_ns"] == w.total);
        CHECK(got["min_ns"] == w.min);
        CHECK(got["max_ns"] == w.max);
        timed += w.samples;
    }
    CHECK(j["exit_time_by_reason"].size() == want.size());
    // the text: perf's columns, most frequent reason first, the totals and what was not timed
    const auto text = run(cli() + " stats '" + path + "'").out;
    CHECK(text.find("VM-EXIT    Samples  Samples%     Time%    Min Time    Max Time         Avg time") != std::string::npos);
    CHECK(text.find("Total Samples:" + std::to_string(timed) + ", Total events handled time:") != std::string::npos);
    CHECK(text.find("(" + std::to_string(exits - timed) + " exits not timed") != std::string::npos);
    std::string top;
    std::uint64_t most = 0;
    for (const auto& [reason, w] : want)
        if (w.samples > most) most = w.samples, top = reason;
    const auto first_row = text.substr(text.find("Avg time") + 10);
    CHECK(first_row.substr(0, first_row.find('\n')).find(" " + top + " ") != std::string::npos);
    // one vCPU's table: only its exits
    const auto v1 = run(cli() + " stats '" + path + "' --vcpu 1");
    CHECK(v1.status == 0);
    CHECK(v1.out.find("/vcpu1 (tid ") != std::string::npos);
    std::uint64_t v1_samples = 0;
    for (const auto& v : j["vcpus"])
        if (v["vcpu"] == 1)
            for (const auto& [reason, x] : v["exit_time_by_reason"].items()) v1_samples += x["samples"].get<std::uint64_t>();
    CHECK(v1.out.find("Total Samples:" + std::to_string(v1_samples) + ",") != std::string::npos);
}
