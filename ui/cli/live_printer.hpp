// What `check --follow` and `record --check` print as a live check goes (ui/README.md,
// "Live check"): each finding once settled — a root as `check` prints it, or every
// finding as one JSON line —, on a terminal a status line on stderr rewritten at most
// once a second, and the summary at the end. Defined with check's printers (cmd_check.cpp).
#pragma once
#include <functional>
#include <string>

#include "pipeline.hpp"

namespace irqflow::cli {

class LivePrinter {
public:
    explicit LivePrinter(bool json);
    // The hooks for pipeline::check_live / record_check. `root` (optional) is called
    // after a root finding was printed, with its JSON text (a line without newline).
    pipeline::LiveWatch watch(std::function<void(const replay::Finding&, const std::string& json)> root = {});
    // Clears the status line and prints the summary (the last JSON line, or check's text).
    void end(const pipeline::Checked& c);
    std::size_t roots() const { return roots_; }

private:
    bool json_, tty_, status_shown_ = false;
    std::size_t roots_ = 0;
    std::uint64_t before_ = 0;  // events at the last status line
};

}  // namespace irqflow::cli
