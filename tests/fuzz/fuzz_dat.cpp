// trace.dat bytes → validator, header probe, page walker, record decoder, the printing
// of unmodelled events (as `events` asks for it), attribution, replay. Any InputError
// is a correct answer; a crash, a sanitizer report, a leak or an allocation beyond
// libFuzzer's -rss_limit_mb is not.
//
// Speed (tests/fuzz/README.md): a real file's headers (event formats, kallsyms, printk
// formats) are most of a small seed, and parsing them — in the forked probe and again
// here — costs far more than reading a few pages. So most mutations go to the bytes
// after the headers (the CPU data), and headers met before are reused instead of parsed
// again; a mutation of the headers is read as any other file is.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "dat/dat_reader.hpp"
#include "dat/dat_validate.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "memfile.hpp"

// libFuzzer's own mutator; weak so the target links without libFuzzer (run_inputs.cpp).
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size) __attribute__((weak));

namespace {

struct Range {
    std::size_t from, size;
};

// The CPU data of an input (where each CPU's pages are stored), or nothing when the
// file's layout is already broken. Headers validated once are recognised by a hash of the
// bytes before the first CPU's data (mutated headers share their length and most bytes:
// comparing them was ~100 KB a header; a hash that collides only misplaces a mutation).
std::vector<Range> cpu_data(const std::uint8_t* data, std::size_t size) {
    struct Known {
        std::size_t length, hash;
        std::vector<Range> ranges;
    };
    static std::vector<Known> known;  // most recent last
    const auto hash = [&](std::size_t n) { return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(data), n)); };
    std::vector<std::pair<std::size_t, std::size_t>> hashed;  // this input's prefixes: length, hash
    for (auto it = known.rbegin(); it != known.rend(); ++it) {
        if (it->length >= size) continue;
        auto h = std::find_if(hashed.begin(), hashed.end(), [&](const auto& k) { return k.first == it->length; });
        if (h == hashed.end()) h = hashed.insert(hashed.end(), {it->length, hash(it->length)});
        if (h->second == it->hash) return it->ranges;
    }
    static irqflow::fuzz::MemFile file("fuzz-dat-layout");
    irqflow::DatLayout layout;
    try {
        layout = irqflow::validate_dat(file.hold(data, size));
    } catch (const irqflow::InputError&) {
        return {};
    }
    const std::uint64_t off = layout.data_offset;
    if (off == 0 || off >= size) return {};
    Known k{static_cast<std::size_t>(off), hash(static_cast<std::size_t>(off)), {}};
    for (const irqflow::CpuData& d : layout.cpu_data)
        if (d.size > 0 && d.offset < size) k.ranges.push_back({static_cast<std::size_t>(d.offset), static_cast<std::size_t>(std::min<std::uint64_t>(d.size, size - d.offset))});
    if (known.size() == 64) known.erase(known.begin());
    known.push_back(k);
    return k.ranges;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned int seed) {
    // One mutation in 256 anywhere, size changes included (a header changed costs a probe
    // and a parse, ~100 times a read whose headers are reused). The others change one
    // CPU's pages in place: every byte outside them — padding, and the option sections
    // a v7 file keeps after its CPU data — is header to the reader's reuse.
    std::vector<Range> ranges;
    if (seed % 256 != 0)
        for (Range r : cpu_data(data, size))  // known headers, maybe of a longer file: clip
            if (r.from < size) ranges.push_back({r.from, std::min(r.size, size - r.from)});
    if (ranges.empty()) return LLVMFuzzerMutate(data, size, max_size);
    const Range r = ranges[(seed / 256) % ranges.size()];
    const std::size_t n = LLVMFuzzerMutate(data + r.from, r.size, r.size);
    if (n < r.size) std::memset(data + r.from + n, 0, r.size - n);  // bytes erased: the layout stays
    return size;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static irqflow::fuzz::MemFile file("fuzz-dat");
    static const bool reuse = (irqflow::reuse_dat_headers(256), true);
    (void)reuse;
    const std::string path = file.hold(data, size);
    try {
        irqflow::LoadOptions lo;
        lo.other_event_info = true;
        const irqflow::Trace t = irqflow::load_trace(path, lo);
        (void)irqflow::replay::replay(t);
    } catch (const irqflow::InputError&) {
    }
    return 0;
}
