// Minimal JSON emitter for the CLI's --json outputs (no dependency needed for this).
#pragma once
#include <cstdint>
#include <ostream>
#include <string_view>

namespace irqflow::ui {

inline void json_string(std::ostream& o, std::string_view s) {
    static const char* hex = "0123456789abcdef";
    o << '"';
    for (unsigned char c : s) {
        switch (c) {
        case '"': o << "\\\""; break;
        case '\\': o << "\\\\"; break;
        case '\n': o << "\\n"; break;
        case '\r': o << "\\r"; break;
        case '\t': o << "\\t"; break;
        default:
            if (c < 0x20) o << "\\u00" << hex[c >> 4] << hex[c & 15];
            else o << static_cast<char>(c);
        }
    }
    o << '"';
}

// Writes "key": with a comma before every key but the first of an object.
class JsonObject {
public:
    explicit JsonObject(std::ostream& o) : o_(o) { o_ << '{'; }
    ~JsonObject() { o_ << '}'; }
    JsonObject(const JsonObject&) = delete;
    JsonObject& operator=(const JsonObject&) = delete;
    std::ostream& key(std::string_view k) {
        if (!first_) o_ << ',';
        first_ = false;
        json_string(o_, k);
        return o_ << ':';
    }

private:
    std::ostream& o_;
    bool first_ = true;
};

// {"key": count, …} from any map of string-like keys to numbers.
template <class Map>
void json_counts(std::ostream& o, const Map& m) {
    JsonObject j(o);
    for (const auto& [k, v] : m) j.key(k) << v;
}

}  // namespace irqflow::ui
