// Tiny argument scanner shared by the subcommands.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

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

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Args {
public:
    explicit Args(std::vector<std::string> a) : a_(std::move(a)) {}
    bool flag(const std::string& name);
    std::optional<std::string> value(const std::string& name);
    std::optional<long long> integer(const std::string& name);
    std::optional<double> number(const std::string& name);
    // Everything after a literal "--".
    std::vector<std::string> after_dashes();
    // Remaining positionals; throws on unknown options.
    std::vector<std::string> positionals();

private:
    std::vector<std::string> a_;
};

// --semantics auto|2012|current (UsageError otherwise).
replay::PvEoiSemantics semantics_option(const std::string& text);

int cmd_events(Args& a);
int cmd_stats(Args& a);
int cmd_record(Args& a);
int cmd_check(Args& a);
int cmd_predict(Args& a);
int cmd_import(Args& a);
int cmd_sessions(Args& a);
int cmd_query(Args& a);
int cmd_rm(Args& a);

}  // namespace irqflow::cli
