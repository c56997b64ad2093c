// The readers take paths (libtracecmd opens the file itself): fuzz input goes into an
// anonymous memory file reachable as /proc/self/fd/N, rewritten for every input.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace irqflow::fuzz {

class MemFile {
public:
    explicit MemFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)) {}
    ~MemFile() { close(fd_); }
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;
    // Replaces the content; returns the path to open it by.
    std::string hold(const std::uint8_t* data, std::size_t size) {
        if (ftruncate(fd_, 0) != 0) return {};
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) return {};
            done += static_cast<std::size_t>(n);
        }
        return "/proc/self/fd/" + std::to_string(fd_);
    }

private:
    int fd_;
};

}  // namespace irqflow::fuzz
