// Errors about bad input: always name the file and the position in it.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace irqflow {

// Where in an input the problem is: a byte offset (binary files) or a line (text).
struct InputPosition {
    enum class Unit { Byte, Line, None } unit = Unit::None;
    std::uint64_t at = 0;
    std::string str() const;
};

class InputError : public std::runtime_error {
public:
    InputError(std::string file, InputPosition pos, const std::string& what);
    const std::string& file() const { return file_; }
    const InputPosition& position() const { return pos_; }
    // The same error about the same input under another name (a spooled pipe shown as
    // the name the user gave).
    InputError with_file(std::string file) const { return InputError(std::move(file), pos_, detail_); }

private:
    std::string file_;
    InputPosition pos_;
    std::string detail_;
};

}  // namespace irqflow
