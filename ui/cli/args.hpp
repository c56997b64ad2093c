// The CLI's commands on CLI11: each command file declares its subcommand (options with
// units, checks with the valid values, examples) and what runs it; main.cpp parses.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "irqflow/capture/trace.hpp"
#include "irqflow/replay/replay.hpp"

namespace irqflow::ui {}
namespace irqflow::cli {
// The event and JSON formatting shared with the GUI (ui/common).
using namespace irqflow::ui;

// Exit codes: 0 ok, 1 findings (check), 2 bad input or environment, 64 usage, 127 the
// command `record` was to run cannot be run (as a shell says).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitUsage = 64;
inline constexpr int kExitCannotRun = 127;

// A usage error found after parsing (a --vcpu the trace does not have): exit 64.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Each subcommand and the function that runs it once it is the one parsed.
using Commands = std::vector<std::pair<CLI::App*, std::function<int()>>>;

// Options several commands share, each with its help text and check.
CLI::Option* add_trace(CLI::App& c, std::string& path);        // TRACE: trace.dat, report or perf script text
CLI::Option* add_serial(CLI::App& c, std::string& path);       // --serial LOG
CLI::Option* add_guest(CLI::App& c, std::string& path);        // --guest GUEST.dat
CLI::Option* add_semantics(CLI::App& c, replay::PvEoiSemantics& s);
CLI::Option* add_db(CLI::App& c, std::string& path, bool must_exist);
CLI::Option* add_vcpu(CLI::App& c, int& vcpu);                 // --vcpu N, decimal ("010" is ten)
// --vector's value: "0xec" or "236" (decimal otherwise, as --vcpu), 0..255; else a
// CLI::ValidationError naming what is accepted.
int parse_vector(const std::string& text);
// A --vcpu the trace does not have: a UsageError naming the ones it has.
void check_vcpu(const Trace& t, const std::string& shown, int vcpu);

// TRACE as the readers can take it. "-" (standard input) or a pipe (/dev/stdin, <(cmd))
// is copied into an unnamed temporary file first, because the readers seek and read a
// file twice; its path is then /proc/self/fd/N, and shown_name() gives back what the
// user wrote for messages ("<stdin>" for "-").
std::string readable_trace(const std::string& given);
std::string shown_name(const std::string& path);

// The long help's closing lines: examples, one per line.
std::string examples(std::initializer_list<const char*> lines);

// add_events … add_record: each command's subcommand and what runs it (commands.def).
#define IRQFLOW_COMMAND(name) void add_##name(CLI::App& app, Commands& out);
#include "commands.def"
#undef IRQFLOW_COMMAND

}  // namespace irqflow::cli
