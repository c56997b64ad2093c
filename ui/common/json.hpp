// Every --json output is built with nlohmann's JSON library: ordered_json keeps keys in
// the order they are written, and invalid UTF-8 from a trace (a serial line, a corrupt
// name) is replaced rather than turned into an error.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace irqflow::ui {

using Json = nlohmann::ordered_json;

inline std::string json_text(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// {"key": count, …} from any map of string-like keys to numbers.
template <class Map>
Json json_counts(const Map& m) {
    Json j = Json::object();
    for (const auto& [k, v] : m) j[std::string(k)] = v;
    return j;
}

// An id the trace did not give (vm, vcpu): null, as the database stores it.
template <class Id>
Json json_id(Id v, Id unknown) {
    return v == unknown ? Json(nullptr) : Json(v.value());
}

}  // namespace irqflow::ui
