#include "sniff.hpp"

#include <algorithm>
#include <cstring>

namespace irqflow {

std::string read_head(std::istream& in) {
    std::string head(kSniffBytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

bool has_perf_magic(std::string_view head) { return head.starts_with("PERFILE2") || head.starts_with("2ELIFREP"); }

bool has_dat_magic(std::string_view head) {
    const std::size_t n = std::min(head.size(), sizeof kDatMagic);
    return n > 0 && std::memcmp(head.data(), kDatMagic, n) == 0;
}

}  // namespace irqflow
