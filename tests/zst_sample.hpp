// Samples kept zstd-compressed (samples/make-captures.sh compresses the raw v6 files
// irqflow writes): inflated into a file the readers can open.
#pragma once
#include <zstd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace irqflow::test {

// Writes the inflated `packed_path` to `out`; false when it is no single zstd frame.
inline bool inflate_zst(const std::string& packed_path, const std::string& out) {
    std::ifstream in(packed_path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string packed = ss.str();
    const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) return false;
    std::string raw(size, '\0');
    if (ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size()) != size) return false;
    std::ofstream(out, std::ios::binary) << raw;
    return true;
}

}  // namespace irqflow::test
