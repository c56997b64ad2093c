// Hands items from a producing thread to a consuming one in batches: a streamed
// trace.dat decodes on one core while the replay runs on the other (EventPipe), an
// import's rows go to SQLite on a thread of their own. At most kDepth batches are in
// flight: memory stays bounded whatever the trace.
#pragma once
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

#include "irqflow/capture/event.hpp"

namespace irqflow {

template <class T, std::size_t BatchSize, std::size_t Depth>
class BatchPipe {
public:
    static constexpr std::size_t kBatch = BatchSize, kDepth = Depth;
    using Batch = std::vector<T>;
    struct Cancelled {};  // thrown in the producer when the consumer gave up

    // Producer: an empty batch with room for kBatch events (recycled when possible).
    Batch take_empty() {
        std::lock_guard l(m_);
        if (free_.empty()) {
            Batch b;
            b.reserve(kBatch);
            return b;
        }
        Batch b = std::move(free_.back());
        free_.pop_back();
        return b;
    }
    // Producer: waits for room; throws Cancelled once the consumer stopped.
    void push(Batch b) {
        std::unique_lock l(m_);
        room_.wait(l, [&] { return full_.size() < kDepth || cancelled_; });
        if (cancelled_) throw Cancelled{};
        full_.push_back(std::move(b));
        ready_.notify_one();
    }
    // Producer: no more batches (with the error that ended them, if any).
    void close(std::exception_ptr error = nullptr) {
        std::lock_guard l(m_);
        closed_ = true;
        error_ = error;
        ready_.notify_one();
    }
    // Consumer: the next batch, or false at the end (rethrows the producer's error).
    bool pop(Batch& out) {
        std::unique_lock l(m_);
        ready_.wait(l, [&] { return !full_.empty() || closed_; });
        if (full_.empty()) {
            if (error_) std::rethrow_exception(error_);
            return false;
        }
        if (!out.empty() || out.capacity()) {
            out.clear();
            free_.push_back(std::move(out));
        }
        out = std::move(full_.front());
        full_.pop_front();
        room_.notify_one();
        return true;
    }
    // Consumer: stop the producer (it throws Cancelled at its next push).
    void cancel() {
        std::lock_guard l(m_);
        cancelled_ = true;
        room_.notify_one();
    }

private:
    std::mutex m_;
    std::condition_variable ready_, room_;
    std::deque<Batch> full_;
    std::vector<Batch> free_;
    bool closed_ = false, cancelled_ = false;
    std::exception_ptr error_;
};

using EventPipe = BatchPipe<Event, 8192, 4>;

}  // namespace irqflow
