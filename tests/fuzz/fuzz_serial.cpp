// Serial log bytes → line splitting, printk stamps, and alignment against the UART
// writes of a real capture (the run matcher and the console proof).
#include <cstdint>

#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"
#include "irqflow/capture/serial.hpp"
#include "memfile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const irqflow::Trace trace = irqflow::load_trace(IRQFLOW_SAMPLES "/pveoi-on.dat");
    static irqflow::fuzz::MemFile file("fuzz-serial");
    const std::string path = file.hold(data, size);
    try {
        irqflow::SerialLog log = irqflow::read_serial_log(path);
        irqflow::align_serial(trace, log);
    } catch (const irqflow::InputError&) {
    }
    return 0;
}
