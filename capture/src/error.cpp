#include "irqflow/capture/error.hpp"

namespace irqflow {

std::string InputPosition::str() const {
    switch (unit) {
    case Unit::Byte: return "byte " + std::to_string(at);
    case Unit::Line: return "line " + std::to_string(at);
    case Unit::None: break;
    }
    return {};
}

static std::string compose(const std::string& file, const InputPosition& pos, const std::string& what) {
    std::string s = file;
    if (pos.unit != InputPosition::Unit::None) s += ": " + pos.str();
    return s + ": " + what;
}

InputError::InputError(std::string file, InputPosition pos, const std::string& what)
    : std::runtime_error(compose(file, pos, what)), file_(std::move(file)), pos_(pos), detail_(what) {}

}  // namespace irqflow
