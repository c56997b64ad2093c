// SHA-256 (FIPS 180-4) of a file, to recognise a trace imported twice.
#pragma once
#include <string>
#include <string_view>

namespace irqflow::storage {

// Lowercase hex digest of the file's bytes; throws InputError when unreadable.
std::string sha256_file(const std::string& path);
// Digest of a byte string (tests).
std::string sha256(std::string_view bytes);

}  // namespace irqflow::storage
