#include "irqflow/capture/follow.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../text/text_lines.hpp"
#include "irqflow/capture/error.hpp"
#include "live_feed.hpp"

namespace irqflow {

namespace {
constexpr std::size_t kRead = 1 << 16;
// A line longer than this is no trace line (and must not grow memory without bound).
constexpr std::size_t kMaxLine = 1 << 20;
}  // namespace

Follow::Follow(std::string shown, int fd, const FollowOptions& options)
    : shown_(std::move(shown)), fd_(fd), options_(options), feed_(std::make_unique<LiveFeed>(t_, options)), buffer_(kRead) {
    text_ = std::make_unique<TextLines>(shown_, t_, [this](const Event& e) { feed_->arrived(e, *h_); });
    last_input_ = std::chrono::steady_clock::now();
}

Follow::~Follow() = default;

std::uint64_t Follow::events() const { return feed_->events(); }
std::uint64_t Follow::lost_events() const { return feed_->lost_events(); }

bool Follow::step(std::chrono::milliseconds wait, const Handlers& h) {
    h_ = &h;
    if (ended_) {
        feed_->release(true, h);
        return false;
    }
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(wait.count()));
    now_ = std::chrono::steady_clock::now();
    if (ready < 0 && errno != EINTR) throw InputError(shown_, {}, std::string("cannot wait for input: ") + std::strerror(errno));
    if (ready > 0) {
        const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
        if (n < 0 && errno != EINTR && errno != EAGAIN) throw InputError(shown_, {}, std::string("cannot read: ") + std::strerror(errno));
        if (n == 0) {
            ended_ = true;
            if (!partial_.empty()) text_->line(partial_, ++lineno_, true);
            text_->end(partial_.empty() ? 0 : lineno_, t_);
            feed_->end();
            feed_->release(true, h);
            return false;
        }
        if (n > 0) {
            last_input_ = now_;
            idle_ = false;
            std::size_t from = 0;
            const char* d = buffer_.data();
            for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
                if (d[i] != '\n') continue;
                if (partial_.empty()) {
                    text_->line(std::string_view(d + from, i - from), ++lineno_);
                } else {
                    partial_.append(d + from, i - from);
                    text_->line(partial_, ++lineno_);
                    partial_.clear();
                }
                from = i + 1;
            }
            partial_.append(d + from, static_cast<std::size_t>(n) - from);
            if (partial_.size() > kMaxLine)
                throw InputError(shown_, {InputPosition::Unit::Line, lineno_ + 1}, "a line longer than 1 MiB: not trace text");
        }
    }
    if (!idle_ && now_ - last_input_ >= options_.idle) {  // the writer paused: what is complete goes out
        text_->idle();
        idle_ = true;
    }
    feed_->release(false, h, TimestampNs(INT64_MIN), stalled());
    return true;
}

LiveProgress Follow::progress() const { return {feed_->events(), feed_->lost_events(), feed_->newest(), stalled()}; }

}  // namespace irqflow
