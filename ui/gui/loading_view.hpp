// What the window shows before the session is there: the session picker of a database
// with several sessions, and the progress of the load.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "session.hpp"

namespace irqflow::gui {

// A database with several sessions and none named: pick one. Returns its id once clicked.
// With `print`, each row's rectangle goes to stdout (for tests that click one).
std::optional<std::string> session_picker(const std::string& db, const std::vector<StoredSessionEntry>& all, bool print);

// Shown while the session loads: the stage and a progress bar.
void loading_screen(const std::string& what, const LoadProgress& p);

}  // namespace irqflow::gui
