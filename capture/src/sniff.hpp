// What the first bytes of an input say it is, read before the rest, so that a file of
// gigabytes that is not what the command reads is refused at once, in constant memory.
// One place for the magics: the trace.dat's we read, and those a user's mistake brings.
#pragma once
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace irqflow {

// trace-cmd's trace.dat starts with these bytes.
inline constexpr unsigned char kDatMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

// How much of a file's start decides what it is.
inline constexpr std::size_t kSniffBytes = 64 * 1024;

// Up to kSniffBytes from where the stream stands.
std::string read_head(std::istream& in);
// perf record's own file (perf.data), in either byte order.
bool has_perf_magic(std::string_view head);
// trace-cmd's trace.dat, or a file cut inside its magic.
bool has_dat_magic(std::string_view head);

}  // namespace irqflow
