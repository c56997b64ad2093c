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
#include <cstdint>
#include <cstdlib>
#include <cstring>
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

// Where the CPU data starts, or 0 when the file's layout is already broken. The bytes
// before it decide where it is: headers validated once are recognised by those bytes.
std::size_t data_offset(const std::uint8_t* data, std::size_t size) {
    static std::vector<std::vector<std::uint8_t>> known;  // headers, most recent last
    for (auto it = known.rbegin(); it != known.rend(); ++it)
        if (it->size() < size && std::memcmp(it->data(), data, it->size()) == 0) return it->size();
    static irqflow::fuzz::MemFile file("fuzz-dat-layout");
    std::uint64_t off = 0;
    try {
        off = irqflow::validate_dat(file.hold(data, size)).data_offset;
    } catch (const irqflow::InputError&) {
        return 0;
    }
    if (off == 0 || off >= size) return 0;
    if (known.size() == 64) known.erase(known.begin());
    known.emplace_back(data, data + off);
    return static_cast<std::size_t>(off);
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size, unsigned int seed) {
    // One mutation in 256 anywhere (a header changed costs a probe and a parse, ~100 times
    // a read whose headers are reused), the others in the CPU data.
    const std::size_t off = seed % 256 == 0 ? 0 : data_offset(data, size);
    if (off == 0 || off >= max_size) return LLVMFuzzerMutate(data, size, max_size);
    return off + LLVMFuzzerMutate(data + off, size - off, max_size - off);
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
