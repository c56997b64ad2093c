// Waiting for another writer (storage/README.md, "Concurrent writers"). SQLite's
// fixed busy timeout made a second importer give up after 10 s while the first was
// still writing; a writer now waits as long as the lock is held, and says every few
// seconds who holds it, read from the POSIX lock SQLite takes on the -shm file.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include "irqflow/storage/database.hpp"
#include "sqlite_util.hpp"

namespace irqflow::storage {
namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// SQLite's unix VFS locks byte 120 of the -shm file (the WAL write lock) while a write
// transaction is open, and bytes from 0x40000000 of the database itself in rollback
// mode. F_GETLK names the process of a conflicting lock; ours do not conflict.
pid_t lock_owner(const std::string& file, off_t at, off_t len) {
    const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = at;
    fl.l_len = len;
    const bool got = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    close(fd);
    return got ? fl.l_pid : 0;
}

std::string describe(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), {});
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
    if (cmd.size() > 120) cmd = cmd.substr(0, 117) + "...";
    return "pid " + std::to_string(pid) + (cmd.empty() ? "" : " (" + cmd + ")");
}

}  // namespace

int Database::on_busy(void* self, int count) {
    auto& d = *static_cast<Database*>(self);
    const double t = now_s();
    if (count == 0) d.wait_started_ = d.wait_reported_ = t;
    // Readers only meet a lock while a writer changes the journal mode: a short wait.
    if (d.readonly_ && t - d.wait_started_ > 10) return 0;
    if (d.on_wait_ && t - d.wait_reported_ >= 2) {
        d.wait_reported_ = t;
        pid_t pid = lock_owner(d.path_ + "-shm", 120, 1);
        if (!pid) pid = lock_owner(d.path_, 0x40000000, 512);
        d.on_wait_(LockWait{t - d.wait_started_, pid ? describe(pid) : std::string()});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1 << std::min(count, 6), 50)));
    return 1;
}

}  // namespace irqflow::storage
