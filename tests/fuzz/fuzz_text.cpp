// Report / perf script text → text reader, info parser, attribution, then the whole
// replay (every rule and observer) on whatever events came out: the text layer lets a
// fuzzer write any sequence of KVM events, in any order, with any field values.
#include <cstdint>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "memfile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static irqflow::fuzz::MemFile file("fuzz-text");
    const std::string path = file.hold(data, size);
    try {
        const irqflow::Trace t = irqflow::load_trace(path);
        irqflow::replay::ReplayOptions o;
        o.collect_details = true;
        (void)irqflow::replay::replay(t, o);
    } catch (const irqflow::InputError&) {
    }
    return 0;
}
