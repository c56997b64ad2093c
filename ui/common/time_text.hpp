// Times and time spans as a user types them, the same for `irqflow events --range`,
// `irqflow-gui --range`/`--goto` and the GUI's go-to box: seconds of the trace clock
// ("20.5", "20.5s", "300ms", "17us", "123ns"), or, with a leading '+', from the trace's
// first event ("+4.5s": what the GUI's relative axis row shows).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace irqflow::ui {

// Nanoseconds of the trace clock; `start`: the trace's first event's (for "+…").
std::optional<std::int64_t> parse_time(std::string_view text, std::int64_t start = 0);
// "A:B" of two such times, A < B.
std::optional<std::pair<std::int64_t, std::int64_t>> parse_time_range(std::string_view text, std::int64_t start = 0);
// What the parsers accept, for error messages.
inline constexpr const char* kTimeSyntax = "seconds of the trace clock (20.5, 300ms, 17us) or +TIME from the trace's start (+4.5s)";

}  // namespace irqflow::ui
