// A text file read a line at a time through a fixed buffer, never as one piece: a file
// with no line end in its first gigabytes (a sparse file, a disk image) must not take that
// much memory before it is refused. A line longer than kMaxTextLine is no trace text.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace irqflow {

inline constexpr std::size_t kMaxTextLine = std::size_t{1} << 20;

class LineFile {
public:
    // Throws InputError when the file cannot be opened.
    explicit LineFile(const std::string& path);
    // The next line without its line end; false at the end of the file. Throws
    // InputError naming the line when one runs past kMaxTextLine.
    bool next(std::string& line);
    // Back to the first line.
    void rewind();
    std::uint64_t lineno() const { return lineno_; }
    // The last line read stopped at the end of the file without a line end.
    bool unterminated() const { return unterminated_; }

private:
    struct Close {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    static constexpr std::size_t kChunk = 1 << 16;
    std::string path_;
    std::unique_ptr<std::FILE, Close> f_;
    std::vector<char> buf_;
    std::size_t at_ = 0, end_ = 0;  // the unread part of buf_
    std::uint64_t lineno_ = 0, offset_ = 0;
    bool unterminated_ = false;
};

}  // namespace irqflow
