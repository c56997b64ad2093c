// "key=value key=value …": how the kernel prints the guest's interrupt events and
// kvm_write_tsc_offset, in a trace.dat's printed info and in report text alike.
//
// Pasted text is not always that tidy: a mail client's break inside a token comes back
// from the text reader as a space ("vector =251", "vec tor=251", "vector=2 51"), and an
// annotation right after an event the reader cannot parse may be joined to it as its
// continuation ("vector=236 here the timer fires"). Each format's keys are known and
// come in a fixed order, so the spaces are dropped and each value runs to where the
// next key starts; a number is what leads its value (the last one may carry the
// annotation after it).
#pragma once
#include <charconv>
#include <cstdint>
#include <span>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace irqflow {

class PrintedFields {
public:
    PrintedFields(std::string_view info, std::span<const std::string_view> keys) : original_(info) {
        for (char c : info)
            if (c != ' ' && c != '\t') packed_ += c;
        std::size_t from = 0;
        for (std::string_view k : keys) {
            const std::string tag = std::string(k) + "=";
            const std::size_t at = packed_.find(tag, from);
            if (at == std::string::npos) {
                found_.push_back({k, std::string::npos, 0});
                continue;
            }
            found_.push_back({k, at + tag.size(), 0});
            from = at + tag.size();
        }
        // each value ends where the next key found starts
        for (std::size_t i = 0; i < found_.size(); ++i) {
            if (found_[i].begin == std::string::npos) continue;
            std::size_t end = packed_.size();
            for (std::size_t j = i + 1; j < found_.size(); ++j)
                if (found_[j].begin != std::string::npos) {
                    end = found_[j].begin - found_[j].key.size() - 1;
                    break;
                }
            found_[i].end = end;
        }
    }

    // The number leading a key's value: decimal, or hex after 0x; unsigned for u64 fields.
    template <class Int = std::int64_t>
    std::optional<Int> number(std::string_view key) const {
        auto v = value(key);
        if (!v || v->empty()) return std::nullopt;
        int base = 10;
        if (v->size() > 2 && (*v)[0] == '0' && ((*v)[1] == 'x' || (*v)[1] == 'X')) {
            v->remove_prefix(2);
            base = 16;
        }
        Int n = 0;
        const auto r = std::from_chars(v->data(), v->data() + v->size(), n, base);
        if (r.ec != std::errc() || r.ptr == v->data()) return std::nullopt;
        return n;
    }
    // Whether a key's value starts with `word` ("handled").
    bool starts_with(std::string_view key, std::string_view word) const {
        const auto v = value(key);
        return v && v->substr(0, word.size()) == word;
    }
    // The first word after "key=" as printed (a handler's name): a name is the one value
    // that may itself hold what a wrap would break, so it is taken from the text as is.
    std::optional<std::string_view> word(std::string_view key) const {
        const std::string tag = std::string(key) + "=";
        for (std::size_t at = original_.find(tag); at != std::string_view::npos; at = original_.find(tag, at + 1)) {
            if (at > 0 && original_[at - 1] != ' ') continue;
            const std::size_t b = at + tag.size();
            const std::size_t e = std::min(original_.find(' ', b), original_.size());
            return original_.substr(b, e - b);
        }
        return std::nullopt;
    }

private:
    struct Found {
        std::string_view key;
        std::size_t begin, end;  // the value in packed_; begin npos when the key is missing
    };
    std::optional<std::string_view> value(std::string_view key) const {
        for (const auto& f : found_)
            if (f.key == key && f.begin != std::string::npos) return std::string_view(packed_).substr(f.begin, f.end - f.begin);
        return std::nullopt;
    }
    std::string_view original_;
    std::string packed_;
    std::vector<Found> found_;
};

}  // namespace irqflow
