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
    explicit MemFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)), path_("/proc/self/fd/" + std::to_string(fd_)) {}
    ~MemFile() { close(fd_); }
    MemFile(const MemFile&) = delete;
    MemFile& operator=(const MemFile&) = delete;
    // Replaces the content; returns the path to open it by. Written over the previous
    // content and then cut to size: emptying the file first gave its pages back to the
    // kernel, to be allocated and faulted in again for every input.
    std::string hold(const std::uint8_t* data, std::size_t size) {
        std::size_t done = 0;
        while (done < size) {
            const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) return {};
            done += static_cast<std::size_t>(n);
        }
        if (ftruncate(fd_, static_cast<off_t>(size)) != 0) return {};
        return path_;
    }

private:
    int fd_;
    std::string path_;
};

}  // namespace irqflow::fuzz
