// Report text read line by line as it arrives (a live `trace-cmd stream` or `perf
// script` on a pipe), each event handed over as soon as it is complete: the same
// assembler as read_trace_text, with no first pass for a mail client's wrap column
// (a stream is not wrapped) and nothing kept per event but the line runs
// (capture/README.md, "Following a stream").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "irqflow/capture/readers.hpp"

namespace irqflow {

class TextLines {
public:
    // Events go to `sink` in input order; `t` gets the meta, names, comms and line runs.
    TextLines(const std::string& shown, Trace& t, const EventSink& sink);
    ~TextLines();
    TextLines(const TextLines&) = delete;
    TextLines& operator=(const TextLines&) = delete;
    // One line without its line end; `unterminated`: the input ended inside it.
    void line(std::string_view text, std::uint64_t lineno, bool unterminated = false);
    // No more input for now: what is complete goes out.
    void idle();
    // The end of the input (`unterminated_line`: the last line had no line end, else 0).
    void end(std::uint64_t unterminated_line, Trace& t);

private:
    struct Parser;
    std::string shown_;
    EventSink sink_;
    std::unique_ptr<Parser> parser_;
    bool perf_ = false;
    std::uint64_t cut_ = 0;
};

}  // namespace irqflow
