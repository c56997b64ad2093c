// A session's source hash, known when it begins or given while its events stream
// (session_sink.hpp, SessionSource).
#include <cstdio>
#include <random>
#include <stdexcept>

#include "session_sink.hpp"

namespace irqflow::storage {

SessionSource::SessionSource(std::string sha256) : sha256_(std::move(sha256)) {
    if (!sha256_.empty()) return;
    // Not a hash (no hex digest has a '-'), and unique among imports running at once.
    std::random_device random;
    char tail[17];
    std::snprintf(tail, sizeof tail, "%08x%08x", random(), random());
    stand_in_ = std::string("importing-") + tail;
}

void SessionSource::given(const std::string& where, const std::string& sha256) {
    if (known()) {
        if (sha256 != sha256_) throw std::logic_error("SessionSource: a second, different sha256 for one session");
        return;
    }
    if (const auto it = stored_.find(sha256); it != stored_.end()) throw duplicate_source(where, sha256, it->second.first, it->second.second);
    sha256_ = sha256;
}

StorageError duplicate_source(const std::string& where, const std::string& sha256, std::int64_t id, const std::string& name) {
    return StorageError(where + ": this trace (sha256 " + sha256.substr(0, 12) + "…) is already session " + std::to_string(id) + " \"" + name + "\"");
}

}  // namespace irqflow::storage
