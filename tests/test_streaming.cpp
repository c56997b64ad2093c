// Streaming (TraceStream + StreamingReplay, what `check` runs on a trace.dat) gives the
// same events, attribution and replay as loading the whole trace, on every sample.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "dat/dat_validate.hpp"
#include "irqflow/capture/attribution.hpp"
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

// What attribution made of a trace: its VMs, vCPUs (thread, APIC id), other threads,
// drop windows and warnings.
void check_same_attribution(const Trace& got, const Trace& want) {
    REQUIRE(got.vms.size() == want.vms.size());
    for (std::size_t v = 0; v < want.vms.size(); ++v) {
        REQUIRE(got.vms[v].vcpus.size() == want.vms[v].vcpus.size());
        for (std::size_t c = 0; c < want.vms[v].vcpus.size(); ++c) {
            CHECK(got.vms[v].vcpus[c].id == want.vms[v].vcpus[c].id);
            CHECK(got.vms[v].vcpus[c].tid == want.vms[v].vcpus[c].tid);
            CHECK(got.vms[v].vcpus[c].apic == want.vms[v].vcpus[c].apic);
        }
        CHECK(got.vms[v].other_threads == want.vms[v].other_threads);
    }
    CHECK(got.drop_window_starts == want.drop_window_starts);
    CHECK(got.meta.warnings == want.meta.warnings);
}

// The stream's skeleton and events are the loaded trace's; `also` sees each event.
void check_streamed_as_loaded(TraceStream& stream, const Trace& loaded, const EventSink& also = {}) {
    const Trace& skeleton = stream.trace();
    CHECK(skeleton.events.empty());
    check_same_attribution(skeleton, loaded);
    CHECK(skeleton.comms == loaded.comms);
    std::size_t i = 0, differing = 0;
    stream.each_event([&](const Event& e) {
        const Event l = i < loaded.events.size() ? loaded.events[i] : Event{};
        differing += !(e.ts == l.ts && e.record == l.record && e.kind == l.kind && e.tid == l.tid && e.vm == l.vm && e.vcpu == l.vcpu &&
                       e.present == l.present && e.f == l.f);
        if (also) also(e);
        ++i;
    });
    CHECK(i == loaded.events.size());
    CHECK(differing == 0);
}

}  // namespace

TEST_CASE("a streamed trace.dat hands over the loaded trace's events and replays the same", "[capture][streaming][samples]") {
    for (const auto& path : samples()) {
        INFO(path);
        const Trace loaded = load_trace(path);
        TraceStream stream(path);
        replay::StreamingReplay streamed(stream.trace());
        check_streamed_as_loaded(stream, loaded, [&](const Event& e) { streamed.feed(e); });
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

// The attribution pass reads a big enough trace.dat in two parts of its time at once,
// each learnt by an Attributor of its own (capture/README.md, "Streaming"): what the
// second learnt, appended to the first, must be what one pass over the whole learns —
// wherever the cut falls, in a thread's run, on a drop marker, before a CPU's first event.
TEST_CASE("attribution learnt in two parts and appended is what one pass over the whole learns, wherever the cut falls",
          "[capture][streaming][attribution][samples]") {
    for (const char* name : {"lossy.dat", "lost.dat", "pvspin.dat", "hyperv.dat", "instance.dat"}) {
        const std::string path = std::string(IRQFLOW_SAMPLES) + "/" + name;
        INFO(path);
        const Trace loaded = load_trace(path);
        std::vector<Event> all = loaded.events.to_vector(), excerpt;
        // also as a hang report's excerpt without kvm_entry/kvm_exit: vCPUs learnt from the
        // APIC ids accepts and EOIs carry, threads from the EOIs
        std::copy_if(all.begin(), all.end(), std::back_inserter(excerpt),
                     [](const Event& e) { return e.kind != EventKind::Entry && e.kind != EventKind::Exit; });
        for (const auto* kept : {&all, &excerpt}) {
            const std::vector<Event>& events = *kept;
            const std::size_t n = events.size();
            std::vector<std::size_t> cuts{0, 1, n / 3, n / 2, n - 1, n};
            for (std::size_t i = 0, drops = 0; i < n && drops < 4; ++i)
                if (events[i].kind == EventKind::Lost) {  // on a drop, and either side of it
                    cuts.insert(cuts.end(), {i, i + 1, i > 0 ? i - 1 : 0});
                    ++drops;
                }
            if (std::string(name) == "lossy.dat" || std::string(name) == "lost.dat") CHECK(cuts.size() > 6);  // drops to cut at

            Trace whole = loaded;
            Attributor one(whole);
            for (const Event& e : events) one.learn(e);
            one.finish(whole);
            for (const std::size_t cut : cuts) {
                INFO("cut before event " << cut << " of " << n);
                Trace parts = loaded;
                Attributor first(parts), second(parts);
                for (std::size_t i = 0; i < n; ++i) (i < cut ? first : second).learn(events[i]);
                first.append(second);
                first.finish(parts);
                check_same_attribution(parts, whole);
                std::size_t differing = 0;
                for (const Event& e : events) differing += first.owner(e) != one.owner(e);
                CHECK(differing == 0);
            }
        }
    }
}

// A CPU stream whose page times go back (its last page moved to the front) is cut by
// the earlier part at that page, by the later where the times, searched as if sorted,
// cross the cut: the parts do not meet, and the attribution pass reads the file again
// whole. (Halves swapped would still meet: a cut at the first record past the split time
// is right for any order; only finding it by page times needs them sorted.)
TEST_CASE("a trace.dat whose page times go back is streamed as loaded", "[capture][streaming][samples]") {
    // uncompressed, so that pages can be moved; a capture with drops, whose windows count
    // every event before them
    const auto from = std::filesystem::temp_directory_path() / ("irqflow-lossy-v6-" + std::to_string(getpid()) + ".dat");
    const std::string convert = "trace-cmd convert --file-version 6 --compression none -i '" + std::string(IRQFLOW_SAMPLES) +
                                "/lossy.dat' -o '" + from.string() + "' > /dev/null 2>&1";
    REQUIRE(std::system(convert.c_str()) == 0);
    const DatLayout layout = validate_dat(from);
    REQUIRE_FALSE(layout.compressed);
    REQUIRE_FALSE(layout.cpu_data.empty());
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const CpuData* busiest = &layout.cpu_data[0];
    for (const CpuData& d : layout.cpu_data)
        if (d.size > busiest->size) busiest = &d;
    const std::uint64_t pages = busiest->size / layout.page_size;
    REQUIRE(pages >= 4);
    const std::uint64_t last = (pages - 1) * layout.page_size;
    const std::string region = bytes.substr(busiest->offset, pages * layout.page_size);
    bytes.replace(busiest->offset, region.size(), region.substr(last) + region.substr(0, last));
    const auto path = std::filesystem::temp_directory_path() / ("irqflow-times-go-back-" + std::to_string(getpid()) + ".dat");
    std::ofstream(path, std::ios::binary) << bytes;
    REQUIRE_FALSE(load_trace(path.string()).drop_window_starts.empty());
    TraceStream stream(path.string());
    check_streamed_as_loaded(stream, load_trace(path.string()));
    std::filesystem::remove(path);
    std::filesystem::remove(from);
}
