// The guest's serial console log, aligned to host time (capture/README.md, "Serial alignment").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

enum class SerialAlignment {
    Pio,           // exact: the line's bytes were found in the guest's UART writes (kvm_pio)
    PrintkOffset,  // approximate: printk time + the VM's first vCPU entry as guest time zero
    Neighbour,     // approximate: no timestamp of its own; time of the previous aligned line
    None,          // no host time could be given
};
const char* to_string(SerialAlignment a);

struct SerialLine {
    std::uint64_t line = 0;               // 1-based line number in the log
    std::uint64_t offset = 0;             // byte offset of the line in the log
    std::string text;                     // without CR/LF; invalid UTF-8 replaced by U+FFFD
    std::optional<double> printk_s;       // "[   12.345678] " prefix, seconds
    std::optional<TimestampNs> host_ts;   // host time of the line's first byte
    SerialAlignment alignment = SerialAlignment::None;
};

struct SerialLog {
    std::string source;
    std::string bytes;              // the log as written (raw)
    std::vector<SerialLine> lines;
    // Filled by align_serial:
    VmId vm = kUnknownVm;
    std::string method;             // human summary of how lines were placed
    std::uint64_t uart_bytes = 0;   // bytes rebuilt from kvm_pio writes
    std::uint64_t matched_bytes = 0;
};

// Reads and splits a serial log; tolerates CRLF, invalid UTF-8 and binary garbage.
SerialLog read_serial_log(const std::string& path);

// The bytes a VM wrote to the 16550 data register at `port` (DLAB tracked), with the
// host time of each write.
struct UartStream {
    std::string bytes;
    std::vector<TimestampNs> ts;
};
UartStream rebuild_uart(const Trace& trace, VmId vm, std::uint16_t port = 0x3f8);

// Gives every line a host time: by matching against the UART writes in the trace when
// there are any, else from printk timestamps with a boot-anchored offset.
void align_serial(const Trace& trace, SerialLog& log, std::uint16_t port = 0x3f8);

}  // namespace irqflow
