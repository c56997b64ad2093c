#include "args.hpp"

#include <algorithm>

namespace irqflow::cli {

bool Args::flag(const std::string& name) {
    auto it = std::find(a_.begin(), a_.end(), name);
    if (it == a_.end()) return false;
    a_.erase(it);
    return true;
}

std::optional<std::string> Args::value(const std::string& name) {
    for (auto it = a_.begin(); it != a_.end(); ++it) {
        if (*it == "--") break;
        if (*it == name) {
            if (it + 1 == a_.end()) throw UsageError(name + " needs a value");
            std::string v = *(it + 1);
            a_.erase(it, it + 2);
            return v;
        }
        if (it->rfind(name + "=", 0) == 0) {
            std::string v = it->substr(name.size() + 1);
            a_.erase(it);
            return v;
        }
    }
    return std::nullopt;
}

std::optional<long long> Args::integer(const std::string& name) {
    auto v = value(name);
    if (!v) return std::nullopt;
    try {
        std::size_t used = 0;
        long long n = std::stoll(*v, &used, 0);
        if (used != v->size()) throw std::invalid_argument("");
        return n;
    } catch (const std::exception&) {
        throw UsageError(name + " expects an integer, got \"" + *v + "\"");
    }
}

std::optional<double> Args::number(const std::string& name) {
    auto v = value(name);
    if (!v) return std::nullopt;
    try {
        std::size_t used = 0;
        double d = std::stod(*v, &used);
        if (used != v->size()) throw std::invalid_argument("");
        return d;
    } catch (const std::exception&) {
        throw UsageError(name + " expects a number, got \"" + *v + "\"");
    }
}

std::vector<std::string> Args::after_dashes() {
    auto it = std::find(a_.begin(), a_.end(), "--");
    if (it == a_.end()) return {};
    std::vector<std::string> rest(it + 1, a_.end());
    a_.erase(it, a_.end());
    return rest;
}

std::vector<std::string> Args::positionals() {
    for (const auto& s : a_)
        if (s.size() > 1 && s[0] == '-') throw UsageError("unknown option " + s);
    return a_;
}

replay::PvEoiSemantics semantics_option(const std::string& text) {
    const auto s = replay::parse_semantics(text);
    if (!s) throw UsageError("--semantics is auto, 2012 or current");
    return *s;
}

}  // namespace irqflow::cli
