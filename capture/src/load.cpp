#include <sys/stat.h>

#include <fstream>

#include "dat_validate.hpp"
#include "irqflow/capture/error.hpp"
#include "irqflow/capture/readers.hpp"

namespace irqflow {

namespace {

void check_file(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) throw InputError(path, {}, "no such file");
    if (S_ISDIR(st.st_mode)) throw InputError(path, {}, "is a directory, not a trace");
    if (st.st_size == 0) throw InputError(path, {InputPosition::Unit::Byte, 0}, "empty file");
}

}  // namespace

void check_trace_headers(const std::string& path) {
    check_file(path);
    if (looks_like_dat(path)) probe_dat_headers(path);
}

Trace load_trace(const std::string& path, const LoadOptions& options) {
    check_file(path);
    Trace t = looks_like_dat(path) ? read_trace_dat(path, options) : read_trace_text(path);
    attribute(t);
    return t;
}

}  // namespace irqflow
