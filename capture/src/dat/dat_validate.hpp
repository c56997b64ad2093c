// Structural check of a trace.dat before libtracecmd sees it.
//
// libtracecmd trusts the offsets and sizes stored in the file: cut a v7 file anywhere
// and `trace-cmd report` prints nothing and exits 0; cut a v6 file inside the CPU
// data and it reads past the end. Walking the layout ourselves (trace-cmd.dat.v6(5),
// trace-cmd.dat.v7(5)) lets us name the exact byte where the file stops making sense.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "irqflow/capture/trace.hpp"

namespace irqflow {

// Where one CPU's ring-buffer pages of one buffer (top level or instance) are stored.
struct CpuData {
    int cpu = 0;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;     // bytes in the file (compressed size for compressed files)
    int buffer = 0;             // 0 = first buffer listed, in file order
};

struct DatLayout {
    int version = 0;
    std::vector<CpuData> cpu_data;
    // Options that make libtracecmd adjust timestamps (OFFSET, TIME_SHIFT, TSC2NSEC);
    // such files are read through libtracecmd so times stay identical to its own.
    bool adjusts_timestamps = false;
    std::optional<TscToNs> tsc2nsec;   // the TSC2NSEC option, when present
    bool latency = false;       // latency-format text instead of ring-buffer pages
    std::uint64_t latency_offset = 0;  // where that text (v6) or its section (v7) starts
    std::uint64_t page_size = 4096;
    bool compressed = false;
    std::string compression;          // e.g. "zstd"
    std::uint64_t data_offset = 0;    // first byte of CPU data
    std::uint64_t data_bytes = 0;     // bytes of CPU data (all buffers, as stored)
};

// True when the file starts with the trace.dat magic.
bool looks_like_dat(const std::string& path);
// Throws InputError (file + byte offset) when the layout is inconsistent or truncated.
DatLayout validate_dat(const std::string& path);
// validate_dat, then libtracecmd's header parse in a forked child (dat_reader.cpp).
void probe_dat_headers(const std::string& path);

}  // namespace irqflow
