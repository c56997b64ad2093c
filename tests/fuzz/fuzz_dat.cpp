// trace.dat bytes → validator, header probe, page walker, record decoder, the printing
// of unmodelled events (as `events` asks for it), attribution, replay. Any InputError
// is a correct answer; a crash, a sanitizer report, a leak or an allocation beyond
// libFuzzer's -rss_limit_mb is not.
#include <cstdint>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/replay/replay.hpp"
#include "memfile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static irqflow::fuzz::MemFile file("fuzz-dat");
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
