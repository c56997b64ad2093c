// `irqflow diff --fail-on`: a gate on one row of the diff (compare.hpp).
//
//   GATE   := KEY OP NUMBER [ "%" ]
//   OP     := ">" | ">=" | "<" | "<="
//   NUMBER := [ "+" | "-" ] digits [ "." digits ]
//
// KEY is a row's key as `irqflow diff --json` lists them (exits_per_interrupt,
// p99.inject_to_eoi[0xec], exits_per_guest_s[EXIT_HLT], ...). With "%" the gate reads the
// relative change from A to B (100 × (B − A) / |A|), without it the absolute change B − A,
// in the row's unit. A gate trips when the change passes the bound AND the row's test
// calls the change significant (a row without a test: the bound alone), so noise does
// not fail a build.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"

namespace irqflow::ui {

struct Gate {
    std::string text;  // as given
    std::string key;
    enum Op { Greater, GreaterEqual, Less, LessEqual } op = Greater;
    double bound = 0;
    bool percent = false;
};

// The gate `text` means, or nullopt with `error` saying what is wrong and where
// ("at 12: a number after the operator").
std::optional<Gate> parse_gate(std::string_view text, std::string& error);

struct GateResult {
    const DiffRow* row = nullptr;  // null: no row has the key (the caller says so, exit 64)
    double change = 0;             // relative (%) or absolute, as the gate reads it
    bool beyond = false;           // the change passes the bound
    bool tripped = false;          // ... and it is significant
};
GateResult evaluate(const Gate& g, const std::vector<DiffRow>& rows);

}  // namespace irqflow::ui
