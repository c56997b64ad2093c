// The columns in front of an event in `trace-cmd report` / `perf script` text: task,
// CPU, latency flags and timestamp, in every layout the text reader accepts
// (capture/README.md, "Readers"), and the "name: info" that follows them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace irqflow::text {

std::string_view trim(std::string_view s);

struct Header {
    bool has_task = false;
    std::string comm;
    std::int32_t tid = -1;
    std::int32_t cpu = -1;
    std::optional<std::int64_t> ts;
    // The timestamp was a whole number (a counter clock's count, e.g. x86-tsc cycles),
    // read only where the CPU column proves the line an event's (not the bare form).
    bool counter = false;
    std::string_view rest;  // "name: info", or empty when the line was wrapped there
};

// "comm-123 [001] d..1 280.971116: rest" (trace-cmd, ftrace) or
// "comm 123 [001] 280.971116: rest" (perf script).
std::optional<Header> parse_task_header(std::string_view line);
// `trace-cmd report -l`: "qemu-sys-218     0d..1.   120.402509: name: info".
std::optional<Header> parse_latency_header(std::string_view line);
// "  1234.567890: name: info": a timestamp and nothing else in front.
std::optional<Header> parse_ts_header(std::string_view line);
// The first of the three that reads the line.
std::optional<Header> parse_header(std::string_view line);

// "name: info" / "system:name: info"; false for anything else.
bool split_event(std::string_view rest, std::string_view& name, std::string_view& info);
// Text a person could have written: no control characters, valid UTF-8.
bool printable_text(std::string_view s);
// "… [012] …" with a colon later: the shape of an event header.
bool looks_like_header(std::string_view s);
// "… [012]": a CPU column, what a header cut before its timestamp still shows.
bool has_cpu_column(std::string_view s);

}  // namespace irqflow::text
