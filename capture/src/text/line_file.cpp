#include "line_file.hpp"

#include <cstring>

#include "irqflow/capture/error.hpp"

namespace irqflow {

LineFile::LineFile(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")), buf_(kChunk) {
    if (!f_) throw InputError(path, {}, "cannot open file");
}

bool LineFile::next(std::string& line) {
    line.clear();
    unterminated_ = false;
    const std::uint64_t start = offset_;
    for (;;) {
        if (at_ == end_) {
            end_ = std::fread(buf_.data(), 1, buf_.size(), f_.get());
            at_ = 0;
            if (end_ == 0) {
                if (std::ferror(f_.get())) throw InputError(path_, {InputPosition::Unit::Byte, offset_}, "read error");
                if (line.empty()) return false;
                ++lineno_;
                unterminated_ = true;
                return true;
            }
        }
        const char* from = buf_.data() + at_;
        const auto* nl = static_cast<const char*>(std::memchr(from, '\n', end_ - at_));
        const std::size_t n = nl ? static_cast<std::size_t>(nl - from) : end_ - at_;
        if (line.size() + n > kMaxTextLine)
            throw InputError(path_, {InputPosition::Unit::Line, lineno_ + 1},
                             "a line longer than 1 MiB (from byte " + std::to_string(start) + "): not trace text");
        line.append(from, n);
        at_ += n + (nl ? 1 : 0);
        offset_ += n + (nl ? 1 : 0);
        if (nl) {
            ++lineno_;
            return true;
        }
    }
}

void LineFile::rewind() {
    std::rewind(f_.get());
    lineno_ = offset_ = 0;
    at_ = end_ = 0;
    unterminated_ = false;
}

}  // namespace irqflow
