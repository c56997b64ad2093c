// SHA-256 (FIPS 180-4) of a file, to recognise a trace imported twice.
#pragma once
#include <atomic>
#include <string>
#include <string_view>

namespace irqflow::storage {

// Lowercase hex digest of the file's bytes; throws InputError when unreadable. With
// `stop`, it gives up (returning "") once *stop is true: an import that failed does not
// wait for the rest of a multi-GB file to be hashed.
std::string sha256_file(const std::string& path, const std::atomic<bool>* stop = nullptr);
// Digest of a byte string (tests).
std::string sha256(std::string_view bytes);

}  // namespace irqflow::storage
