#include "irqflow/capture/event_store.hpp"

#include <bit>

namespace irqflow {

namespace {

static_assert(kMaxFields <= 8, "EventStore keeps the present-slot mask in one byte");
// Worst case bytes of one event's fields: every slot and the two raw numbers at 10 bytes.
constexpr std::size_t kMaxFieldBytes = (kMaxFields + 2) * 10;

std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t z) {
    return static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
}

std::size_t put_varint(std::uint8_t* out, std::uint64_t v) {
    std::size_t n = 0;
    while (v >= 0x80) {
        out[n++] = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    out[n++] = static_cast<std::uint8_t>(v);
    return n;
}

std::uint64_t get_varint(const std::uint8_t*& p) {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        const std::uint8_t b = *p++;
        v |= std::uint64_t{b & 0x7fu} << shift;
        if (b < 0x80) return v;
    }
}

}  // namespace

void EventStore::push_back(const Event& e) {
    const std::size_t i = size();
    if (i % kChunk == 0) chunks_.push_back(Chunk{e.ts.value(), e.record, fields_.size()});
    const Chunk& c = chunks_.back();
    static_assert(kChunk * (kMaxFieldBytes + kMaxFieldBytes) < kWide16, "a chunk's field bytes must fit 16-bit offsets");

    // Differences in unsigned arithmetic: any int64 pair is defined; what does not fit goes wide.
    const std::uint64_t dts = static_cast<std::uint64_t>(e.ts.value()) - static_cast<std::uint64_t>(c.ts_base);
    if (dts < kWide32) {
        ts_.push_back(static_cast<std::uint32_t>(dts));
    } else {
        ts_.push_back(kWide32);
        wide_[wide_key(i, Column::Ts)] = e.ts.value();
        chunks_.back().wide = true;
    }
    const std::uint64_t drec = e.record - c.record_base;
    if (drec < kWide16) {
        record_.push_back(static_cast<std::uint16_t>(drec));
    } else {
        record_.push_back(kWide16);
        wide_[wide_key(i, Column::Record)] = static_cast<std::int64_t>(e.record);
        chunks_.back().wide = true;
    }
    const std::int64_t cpu = std::int64_t{e.cpu.value()} + 1;
    if (cpu >= 0 && cpu < kWide16) {
        cpu_.push_back(static_cast<std::uint16_t>(cpu));
    } else {
        cpu_.push_back(kWide16);
        wide_[wide_key(i, Column::Cpu)] = e.cpu.value();
        chunks_.back().wide = true;
    }
    tid_.push_back(e.tid.value());
    owner_.push_back(0);
    if (e.vm != kUnknownVm || e.vcpu != kUnknownVcpu) set_owner(i, e.vm, e.vcpu);
    kind_.push_back(static_cast<std::uint8_t>(e.kind));
    const auto present = static_cast<std::uint8_t>(e.present);
    present_.push_back(present);
    name_.push_back(e.name_id);

    std::uint8_t buf[kMaxFieldBytes];
    std::size_t n = 0;
    for (unsigned bits = present; bits; bits &= bits - 1)
        n += put_varint(buf + n, zigzag(e.f[static_cast<std::size_t>(std::countr_zero(bits))]));
    if (e.kind == EventKind::Other) {
        n += put_varint(buf + n, e.raw_off);
        n += put_varint(buf + n, e.raw_len);
    }
    const std::size_t at = fields_.append_contiguous(buf, n);
    field_off_.push_back(static_cast<std::uint16_t>(at - c.field_base));
}

Event EventStore::operator[](std::size_t i) const {
    Event e;
    decode_chunk(i, std::span(&e, 1));
    return e;
}

void EventStore::decode_chunk(std::size_t first, std::span<Event> out) const {
    if (out.empty()) return;
    if (chunks_[first / kChunk].wide) decode_columns<true>(first, out);
    else decode_columns<false>(first, out);
}

template <bool Wide>
void EventStore::decode_columns(std::size_t first, std::span<Event> out) const {
    static_assert(detail::BlockArray<std::uint8_t>::kBlock % kChunk == 0, "a chunk never straddles two column blocks");
    const Chunk& c = chunks_[first / kChunk];
    const std::uint32_t* ts = ts_.data_at(first);
    const std::uint16_t* rec = record_.data_at(first);
    const std::int32_t* tid = tid_.data_at(first);
    const std::uint16_t* cpu = cpu_.data_at(first);
    const std::uint16_t* own = owner_.data_at(first);
    const std::uint8_t* kind = kind_.data_at(first);
    const std::uint8_t* present = present_.data_at(first);
    const std::uint16_t* name = name_.data_at(first);
    const std::uint16_t* foff = field_off_.data_at(first);
    for (std::size_t k = 0; k < out.size(); ++k) {
        const std::size_t i = first + k;
        Event& e = out[k];
        e.ts = Wide && ts[k] == kWide32 ? TimestampNs(wide(i, Column::Ts))
                                : TimestampNs(static_cast<std::int64_t>(static_cast<std::uint64_t>(c.ts_base) + ts[k]));
        e.record = Wide && rec[k] == kWide16 ? static_cast<std::uint64_t>(wide(i, Column::Record)) : c.record_base + rec[k];
        e.tid = Tid(tid[k]);
        e.cpu = Wide && cpu[k] == kWide16 ? HostCpu(static_cast<std::int32_t>(wide(i, Column::Cpu))) : HostCpu(static_cast<std::int32_t>(cpu[k]) - 1);
        const Owner& o = owners_[Wide && own[k] == kWide16 ? static_cast<std::size_t>(wide(i, Column::Owner)) : own[k]];
        e.vm = o.vm;
        e.vcpu = o.vcpu;
        e.kind = static_cast<EventKind>(kind[k]);
        e.name_id = name[k];
        e.present = present[k];
        e.raw_off = 0;
        e.raw_len = 0;
        e.f = {};
        if (present[k] == 0 && e.kind != EventKind::Other) continue;
        const std::uint8_t* p = fields_.data_at(c.field_base + foff[k]);
        for (unsigned bits = present[k]; bits; bits &= bits - 1)
            e.f[static_cast<std::size_t>(std::countr_zero(bits))] = unzigzag(get_varint(p));
        if (e.kind == EventKind::Other) {
            e.raw_off = get_varint(p);
            e.raw_len = static_cast<std::uint32_t>(get_varint(p));
        }
    }
}

TimestampNs EventStore::ts(std::size_t i) const {
    const std::uint32_t d = ts_[i];
    if (d == kWide32) return TimestampNs(wide(i, Column::Ts));
    return TimestampNs(static_cast<std::int64_t>(static_cast<std::uint64_t>(chunks_[i / kChunk].ts_base) + d));
}

HostCpu EventStore::cpu(std::size_t i) const {
    const std::uint16_t c = cpu_[i];
    if (c == kWide16) return HostCpu(static_cast<std::int32_t>(wide(i, Column::Cpu)));
    return HostCpu(static_cast<std::int32_t>(c) - 1);
}

std::uint64_t EventStore::record(std::size_t i) const {
    const std::uint16_t d = record_[i];
    if (d == kWide16) return static_cast<std::uint64_t>(wide(i, Column::Record));
    return chunks_[i / kChunk].record_base + d;
}

template <class Less>
static std::size_t first_not_less(std::size_t n, Less less) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (less(mid)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

std::size_t EventStore::lower_bound_ts(TimestampNs t) const {
    return first_not_less(size(), [&](std::size_t i) { return ts(i) < t; });
}

std::size_t EventStore::lower_bound_record(std::uint64_t r) const {
    return first_not_less(size(), [&](std::size_t i) { return record(i) < r; });
}

std::size_t EventStore::owner_index(VmId vm, VcpuId vcpu) {
    const std::uint64_t key = vm_vcpu_key(vm, vcpu);
    if (key == last_owner_key_) return last_owner_;
    auto [it, added] = owner_ids_.try_emplace(key, owners_.size());
    if (added) owners_.push_back(Owner{vm, vcpu});
    last_owner_key_ = key;
    last_owner_ = it->second;
    return it->second;
}

void EventStore::set_owner(std::size_t i, VmId vm, VcpuId vcpu) {
    const std::size_t o = owner_index(vm, vcpu);
    if (owner_[i] == kWide16) wide_.erase(wide_key(i, Column::Owner));
    if (o < kWide16) {
        owner_[i] = static_cast<std::uint16_t>(o);
    } else {
        owner_[i] = kWide16;
        wide_[wide_key(i, Column::Owner)] = static_cast<std::int64_t>(o);
        chunks_[i / kChunk].wide = true;
    }
}

void EventStore::clear() {
    *this = EventStore();
}

std::vector<Event> EventStore::to_vector() const {
    std::vector<Event> v(size());
    for (std::size_t i = 0; i < size(); i += kChunk) decode_chunk(i, std::span(v).subspan(i, std::min(kChunk, size() - i)));
    return v;
}

void EventStore::assign(std::span<const Event> events) {
    clear();
    for (const Event& e : events) push_back(e);
}

std::size_t EventStore::memory_bytes() const {
    // An unordered_map node: the pair, the next pointer and the cached hash, plus a bucket.
    constexpr std::size_t kNode = sizeof(std::pair<std::uint64_t, std::int64_t>) + 2 * sizeof(void*) + sizeof(void*);
    return chunks_.capacity() * sizeof(Chunk) + ts_.bytes() + record_.bytes() + tid_.bytes() + cpu_.bytes() + owner_.bytes() +
           kind_.bytes() + present_.bytes() + name_.bytes() + field_off_.bytes() + fields_.bytes() + wide_.size() * kNode +
           owners_.capacity() * sizeof(Owner) + owner_ids_.size() * kNode;
}

}  // namespace irqflow
