#include "gate.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace irqflow::ui {

std::optional<Gate> parse_gate(std::string_view text, std::string& error) {
    Gate g;
    g.text = std::string(text);
    std::size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && text[i] == ' ') ++i;
    };
    auto where = [&] { return "at " + std::to_string(i + 1) + ": "; };
    skip();
    const std::size_t key_from = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '<' && text[i] != '>') ++i;
    g.key = std::string(text.substr(key_from, i - key_from));
    if (g.key.empty()) {
        error = where() + "a row key first (exits_per_interrupt, p99.inject_to_eoi[0xec], ...)";
        return std::nullopt;
    }
    skip();
    if (i < text.size() && (text[i] == '<' || text[i] == '>')) {
        const bool greater = text[i] == '>';
        ++i;
        const bool equal = i < text.size() && text[i] == '=';
        if (equal) ++i;
        g.op = greater ? (equal ? Gate::GreaterEqual : Gate::Greater) : (equal ? Gate::LessEqual : Gate::Less);
    } else {
        error = where() + "an operator after the key: >, >=, < or <=";
        return std::nullopt;
    }
    skip();
    std::size_t num_from = i;
    if (i < text.size() && text[i] == '+') num_from = ++i;  // from_chars takes no '+'
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data() + num_from, text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data() + num_from || !std::isfinite(v)) {
        i = num_from;
        error = where() + "a number after the operator (5, +5%, -0.5)";
        return std::nullopt;
    }
    g.bound = v;
    i = static_cast<std::size_t>(end - text.data());
    if (i < text.size() && text[i] == '%') {
        g.percent = true;
        ++i;
    }
    skip();
    if (i != text.size()) {
        error = where() + "nothing after the bound (and its %), found '" + std::string(text.substr(i)) + "'";
        return std::nullopt;
    }
    return g;
}

GateResult evaluate(const Gate& g, const std::vector<DiffRow>& rows) {
    GateResult r;
    for (const auto& row : rows)
        if (row.key == g.key) r.row = &row;
    if (!r.row) return r;
    const DiffRow& row = *r.row;
    if (!g.percent) r.change = row.change();
    else if (row.a != 0) r.change = 100 * row.change() / std::abs(row.a);
    else r.change = row.b == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), row.b);
    switch (g.op) {
    case Gate::Greater: r.beyond = r.change > g.bound; break;
    case Gate::GreaterEqual: r.beyond = r.change >= g.bound; break;
    case Gate::Less: r.beyond = r.change < g.bound; break;
    case Gate::LessEqual: r.beyond = r.change <= g.bound; break;
    }
    r.tripped = r.beyond && (row.test.test[0] == 0 || row.test.significant);
    return r;
}

}  // namespace irqflow::ui
