#include "record_decoder.hpp"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <tuple>
#include <optional>
#include <string_view>

#include "../own_vcpu.hpp"
#include "event_decode.hpp"
#include "irqflow/capture/error.hpp"

namespace irqflow {
namespace {

// Reads a scalar field straight from the record (the file is little-endian: checked
// by the validator); sign-extends signed fields narrower than 64 bits.
// (Inlined: a call per field was a tenth of the reader's instructions.)
[[gnu::always_inline]] inline std::int64_t read_field(const tep_format_field* f, const void* data) {
    const auto* p = static_cast<const unsigned char*>(data) + f->offset;
    std::uint64_t v = 0;
    switch (f->size) {
    case 1: v = *p; break;
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
    case 8: std::memcpy(&v, p, 8); break;
    default: return 0;
    }
    if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8) {
        const int bits = f->size * 8;
        const auto sign = 1ULL << (bits - 1);
        return static_cast<std::int64_t>((v ^ sign) - sign);
    }
    return static_cast<std::int64_t>(v);
}

// The same, from the copy a TypeInfo keeps (no pointer to chase, the sign decided once).
[[gnu::always_inline]] inline std::int64_t read_field(const RecordDecoder::TypeInfo::Read& r, const unsigned char* data) {
    const unsigned char* p = data + r.offset;
    std::uint64_t v;
    switch (r.size) {
    case 1: v = *p; break;
    case 2: { std::uint16_t x; std::memcpy(&x, p, 2); v = x; break; }
    case 4: { std::uint32_t x; std::memcpy(&x, p, 4); v = x; break; }
    case 8: std::memcpy(&v, p, 8); break;
    default: return 0;
    }
    return static_cast<std::int64_t>(v << r.sign_shift) >> r.sign_shift;
}

// How decode() reads field `f`, or nothing for a field it cannot place (a corrupt format).
std::optional<RecordDecoder::TypeInfo::Read> read_of(const tep_format_field* f) {
    if (f->offset < 0 || f->offset > UINT16_MAX || f->size < 0 || f->size > UINT8_MAX) return std::nullopt;
    RecordDecoder::TypeInfo::Read r;
    r.offset = static_cast<std::uint16_t>(f->offset);
    r.size = static_cast<std::uint8_t>(f->size);
    r.sign_shift = (f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && f->size > 0 ? static_cast<std::uint8_t>(64 - 8 * f->size) : 0;
    return r;
}

// What decode() reads of a kind's slot fields (slot i: ti.slot_fields[i], null if absent).
void plan_reads(RecordDecoder::TypeInfo& ti) {
    for (std::size_t i = 0; i < kMaxFields; ++i) {
        const tep_format_field* f = ti.slot_fields[i];
        if (!f) continue;
        auto r = read_of(f);
        if (!r) {  // decode() keeps the per-field test for this kind
            ti.nreads = 0;
            ti.read_of_slot = {};
            ti.present = 0;
            ti.fits = INT_MAX;
            return;
        }
        r->slot = static_cast<std::uint8_t>(i);
        ti.reads[ti.nreads++] = *r;
        ti.read_of_slot[i] = ti.nreads;
        ti.present = static_cast<std::uint16_t>(ti.present | (1u << i));
        ti.fits = std::max(ti.fits, f->offset + f->size);
    }
}

// Names every decode path may ask a kind for, so construction can look them all up
// and decode() never has to (it must stay read-only for the reader threads).
constexpr const char* kSpecialFieldNames[] = {"vector", "irq", "soft", "reinjected", "apicid", "dm", "tm", "vec",
                                              "coalesced", "dest_id", "icr_low", "pin", "e", "chip", "elcr", "imr",
                                              "address", "data"};

// The index of a special field name, at compile time: decode() never compares strings.
consteval std::size_t F(std::string_view name) {
    for (std::size_t i = 0; i < std::size(kSpecialFieldNames); ++i)
        if (name == kSpecialFieldNames[i]) return i;
    throw "not in kSpecialFieldNames";
}

// Reads kernel fields of one record by name; absent fields stay absent.
class Fields {
public:
    Fields(const RecordDecoder::TypeInfo& ti, const void* data, int size) : ti_(ti), data_(data), size_(size) {}
    // (Inline: a call per field of every accept, injection, IPI and IRQ-chip event was a
    // twentieth of `check`'s CPU.)
    [[gnu::always_inline]] std::optional<std::int64_t> operator()(std::size_t special) const {
        const tep_format_field* f = ti_.special[special];
        if (!f || f->offset + f->size > size_) return std::nullopt;  // a field past the record is not there
        return read_field(f, data_);
    }

private:
    const RecordDecoder::TypeInfo& ti_;
    const void* data_;
    int size_;
};

void copy(Event& e, int slot, std::optional<std::int64_t> v) {
    if (v) e.set(slot, *v);
}

// Fills the normalized slots from the kernel's fields. Most slots carry the kernel
// field of the same name; the cases below are where the kernel packs or names
// things differently (and where report text can only show the decoded facts).
void decode_special(Event& e, const Fields& r) {
    const auto bit = [](std::int64_t w, std::int64_t n) { return (w >> n) & 1; };
    switch (e.kind) {
    case EventKind::InjVirq: {  // "irq" before Linux 5.x, "vector" after
        auto v = r(F("vector"));
        copy(e, slot::inj_vector, v ? v : r(F("irq")));
        copy(e, slot::inj_soft, r(F("soft")));
        copy(e, slot::inj_reinjected, r(F("reinjected")));
        return;
    }
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq:  // dm holds the ICR delivery-mode bits (10:8)
        copy(e, slot::accept_apicid, r(F("apicid")));
        if (auto dm = r(F("dm"))) e.set(slot::accept_dm, (*dm >> 8) & 7);
        if (auto tm = r(F("tm"))) e.set(slot::accept_tm, *tm != 0);  // the raw ICR trigger bit (0x8000)
        copy(e, slot::accept_vec, r(F("vec")));
        if (e.kind == EventKind::ApicAcceptIrq) copy(e, slot::accept_coalesced, r(F("coalesced")));
        return;
    case EventKind::ApicIpi:
        copy(e, slot::ipi_dest_id, r(F("dest_id")));
        if (auto w = r(F("icr_low"))) decode_packed(e, static_cast<std::uint64_t>(*w));
        return;
    case EventKind::IoapicSetIrq:  // slots: pin, dst, vec, dm, dest_mode, tm, masked, coalesced
        copy(e, 0, r(F("pin")));
        copy(e, 7, r(F("coalesced")));
        if (auto w = r(F("e"))) decode_packed(e, static_cast<std::uint64_t>(*w));
        return;
    case EventKind::PicSetIrq: {
        copy(e, 0, r(F("chip")));
        auto pin = r(F("pin"));
        copy(e, 1, pin);
        // a PIC has 8 pins; a pin past the masks' bits (a corrupt record) has no bit in them
        const bool in_masks = pin && *pin >= 0 && *pin < 64;
        if (auto elcr = r(F("elcr")); elcr && in_masks) e.set(2, bit(*elcr, *pin));
        if (auto imr = r(F("imr")); imr && in_masks) e.set(3, bit(*imr, *pin));
        copy(e, 4, r(F("coalesced")));
        return;
    }
    case EventKind::MsiSetIrq: {
        auto addr = r(F("address"));
        auto data = r(F("data"));
        if (!addr || !data) return;
        e.set(0, ((*addr >> 12) & 0xff) | ((*addr >> 32) & 0xffffff00));
        e.set(1, *data & 0xff);
        e.set(2, (*data >> 8) & 7);
        e.set(3, bit(*addr, 2));
        e.set(4, bit(*data, 15));
        e.set(5, bit(*addr, 3));
        return;
    }
    default:  // plain kinds never come here (RecordDecoder::decode reads their slots directly)
        return;
    }
}

// Kinds whose normalized slots need more than a same-named kernel field.
bool special_kind(EventKind k) {
    switch (k) {
    case EventKind::InjVirq:
    case EventKind::ApicAcceptIrq:
    case EventKind::ApicvAcceptIrq:
    case EventKind::ApicIpi:
    case EventKind::IoapicSetIrq:
    case EventKind::PicSetIrq:
    case EventKind::MsiSetIrq: return true;
    default: return false;
    }
}

static_assert(std::size(kSpecialFieldNames) <= std::tuple_size_v<decltype(RecordDecoder::TypeInfo::special)>);

}  // namespace

RecordDecoder::RecordDecoder(tep_handle* tep, Trace& names, std::string path, std::uint64_t page_size)
    : path_(std::move(path)), page_size_(page_size) {
    lost_name_ = names.intern("lost_events");
    long_size_ = tep_get_header_page_size(tep) == 4 ? 4 : 8;
    unknown_.name_id = names.intern("unknown_event");
    tep_event** all = tep_list_events(tep, TEP_EVENT_SORT_ID);  // owned by tep
    for (tep_event** p = all; p && *p; ++p) {
        tep_event* ev = *p;
        if (ev->id < 0 || ev->id > 65535) continue;
        const auto id = static_cast<std::size_t>(ev->id);
        if (id >= by_id_.size()) by_id_.resize(id + 1, kNoType);
        if (by_id_[id] == kNoType) {
            if (types_.size() >= kNoType) continue;  // as many types as ids: not a kernel's formats
            by_id_[id] = static_cast<std::uint16_t>(types_.size());
            types_.emplace_back();
        }
        TypeInfo& ti = types_[by_id_[id]];
        ti = TypeInfo{};
        ti.ev = ev;
        const std::string name = ev->name ? ev->name : "unnamed_event_" + std::to_string(ev->id);
        ti.name_id = names.intern(name);
        if (auto kind = kind_by_name(name)) ti.kind = *kind;
        if (ti.kind == EventKind::Other) {
            if (names_own_vcpu(name))
                for (std::string_view field : kOwnVcpuFields)
                    if (!ti.slot_fields[slot::other_vcpu_id]) ti.slot_fields[slot::other_vcpu_id] = tep_find_field(ev, field.data());
            plan_reads(ti);
            continue;
        }
        if (!special_kind(ti.kind)) {
            ti.plain = true;
            const auto& info = kind_info(ti.kind);
            for (std::size_t i = 0; i < info.nfields; ++i) ti.slot_fields[i] = tep_find_field(ev, info.fields[i].data());
            plan_reads(ti);
        } else {
            for (std::size_t i = 0; i < std::size(kSpecialFieldNames); ++i) ti.special[i] = tep_find_field(ev, kSpecialFieldNames[i]);
        }
        if (!common_type_) {
            common_type_ = tep_find_common_field(ev, "common_type");
            common_pid_ = tep_find_common_field(ev, "common_pid");
        }
    }
    if (!common_type_ && all && *all) {
        common_type_ = tep_find_common_field(*all, "common_type");
        common_pid_ = tep_find_common_field(*all, "common_pid");
    }
    if (!common_type_ || !common_pid_ || common_type_->offset + common_type_->size > 8 || common_pid_->offset + common_pid_->size > 8)
        throw InputError(path_, {}, "event formats lack common_type/common_pid");
    const auto type_read = read_of(common_type_), pid_read = read_of(common_pid_);
    if (!type_read || !pid_read) throw InputError(path_, {}, "event formats place common_type/common_pid outside the record");
    type_read_ = *type_read;
    pid_read_ = *pid_read;
    // every kernel's so far: a 16-bit type at byte 0, a signed 32-bit pid at byte 4
    usual_common_ = type_read_.offset == 0 && type_read_.size == 2 && type_read_.sign_shift == 0 && pid_read_.offset == 4 &&
                    pid_read_.size == 4 && pid_read_.sign_shift == 32;
}

// A record's event type id and thread (the common fields every record starts with).
[[gnu::always_inline]] inline std::pair<int, std::int32_t> RecordDecoder::common(const unsigned char* data) const {
    if (usual_common_) [[likely]] {  // fixed loads instead of two switches on the sizes
        std::uint16_t type;
        std::int32_t pid;
        std::memcpy(&type, data, 2);
        std::memcpy(&pid, data + 4, 4);
        return {type, pid};
    }
    return {static_cast<int>(read_field(type_read_, data)), static_cast<std::int32_t>(read_field(pid_read_, data))};
}

const RecordDecoder::TypeInfo& RecordDecoder::type(int id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= by_id_.size()) return unknown_;
    const std::uint16_t i = by_id_[static_cast<std::size_t>(id)];
    return i == kNoType ? unknown_ : types_[i];
}

namespace {

// A new event: at the end of the caller's batch, or `local` (a fresh Event). (Zeroing
// the local's fields again changes nothing but the code: GCC then writes it with a few
// vector stores instead of a `rep stos`, whose start-up every record paid. In place the
// vector's construction zeroes it once, and the trick does not apply.)
template <bool InPlace>
[[gnu::always_inline]] inline Event& new_event(Batch& out, Event& local) {
    if constexpr (InPlace) {
        return out.batches->into->emplace_back();
    } else {
        local.f = {};
        return local;
    }
}

}  // namespace

void RecordDecoder::refuse(const RawRecord& rec) const {
    auto fail = [&](const std::string& what) { throw InputError(path_, {InputPosition::Unit::Byte, rec.offset}, what); };
    if (rec.size < 8) fail("record shorter than the common event header");
    if (static_cast<std::uint64_t>(rec.size) > page_size_)
        fail("record of " + std::to_string(rec.size) + " bytes in a " + std::to_string(page_size_) +
             "-byte page: corrupt ring-buffer data or header formats");
    // Event times are signed nanoseconds everywhere after this; a page that puts a record
    // beyond 2^63 ns (292 years of uptime) is corrupt: kept, its time would turn negative
    // and overflow the replay's time arithmetic (found by fuzz_dat).
    if (rec.ts > static_cast<std::uint64_t>(INT64_MAX))
        fail("record time " + std::to_string(rec.ts) + " ns is beyond any clock's range: corrupt ring-buffer page");
}

[[gnu::always_inline]] inline void RecordDecoder::check(const RawRecord& rec) const {
    if (rec.size < 8 || static_cast<std::uint64_t>(rec.size) > page_size_ || rec.ts > static_cast<std::uint64_t>(INT64_MAX)) [[unlikely]]
        refuse(rec);
}

template <bool InPlace>
void RecordDecoder::decode_as(const RawRecord& rec, Batch& out) const {
    check(rec);
    if (rec.missed != 0) {
        Event local;
        Event& lost = new_event<InPlace>(out, local);
        lost.kind = EventKind::Lost;
        lost.name_id = lost_name_;
        lost.ts = TimestampNs(static_cast<std::int64_t>(rec.ts));
        lost.cpu = HostCpu(rec.cpu);
        lost.set(slot::lost_count, rec.missed > 0 ? rec.missed : -1);
        lost.record = out.next_record;
        out.add(lost);
    }
    const auto* data = static_cast<const unsigned char*>(rec.data);
    const auto [type_id, pid] = common(data);
    const TypeInfo& ti = type(type_id);
    Event local;
    Event& e = new_event<InPlace>(out, local);
    e.ts = TimestampNs(static_cast<std::int64_t>(rec.ts));
    e.cpu = HostCpu(rec.cpu);
    e.tid = Tid(pid);
    e.kind = ti.kind;
    e.name_id = ti.name_id;
    e.record = out.next_record++;
    if (!out.wants_fields(ti.kind)) {
        // kind, time, CPU, thread and name only
    } else if (ti.plain || ti.kind == EventKind::Other) {  // an Other event: its own vCPU alone
        if (rec.size >= ti.fits) {  // every field there: the common case
            for (std::size_t i = 0; i < ti.nreads; ++i) e.f[ti.reads[i].slot] = read_field(ti.reads[i], data);
            e.present = ti.present;
        } else {  // a short record: only the fields inside it
            for (std::size_t i = 0; i < kMaxFields; ++i) {
                const tep_format_field* f = ti.slot_fields[i];
                if (f && f->offset + f->size <= rec.size) e.set(static_cast<int>(i), read_field(f, rec.data));
            }
        }
        if (ti.kind == EventKind::Other && out.printer && ti.ev) {  // printed only when asked for (capture/README.md)
            const std::size_t at = out.other_info->size();
            out.printer->print(rec, ti.ev, *out.other_info);
            e.raw_off = at;
            e.raw_len = static_cast<std::uint32_t>(out.other_info->size() - at);
        }
    } else {
        decode_special(e, Fields(ti, rec.data, rec.size));
    }
    out.add(e);
}

// What decode_as would put in slot `slot` of this record's event, for the kinds whose
// reads are not planned (decode_head reads the others itself).
std::optional<std::int64_t> RecordDecoder::slot_value(const TypeInfo& ti, const RawRecord& rec, int slot) const {
    if (ti.plain || ti.kind == EventKind::Other) {  // a format with a field where a Read cannot say
        const tep_format_field* f = ti.slot_fields[static_cast<std::size_t>(slot)];
        if (!f || f->offset + f->size > rec.size) return std::nullopt;  // a short record holds the fields inside it
        return read_field(f, rec.data);
    }
    // A kind whose slots are not its kernel fields (an accept's): decoded whole, as the
    // second pass does, so both passes agree on every value.
    Event e;
    e.kind = ti.kind;
    decode_special(e, Fields(ti, rec.data, rec.size));
    return e.get(slot);
}

void RecordDecoder::decode_head(const RawRecord& rec, Batch& out) const {
    check(rec);
    if (rec.missed != 0) [[unlikely]] {
        EventHead lost;
        lost.kind = EventKind::Lost;
        lost.name_id = lost_name_;
        lost.cpu = HostCpu(rec.cpu);
        out.add(lost);
    }
    const auto* data = static_cast<const unsigned char*>(rec.data);
    const auto [type_id, pid] = common(data);
    const TypeInfo& ti = type(type_id);
    EventHead& h = out.new_head();
    h.kind = ti.kind;
    h.name_id = ti.name_id;
    h.cpu = HostCpu(rec.cpu);
    h.tid = Tid(pid);
    h.value.reset();
    if (const int slot = out.head_slot[static_cast<std::size_t>(ti.kind)]; slot >= 0) {
        if (ti.planned()) {  // the format's field, when it has one and the record holds it
            if (const std::uint8_t i = ti.read_of_slot[static_cast<std::size_t>(slot)]) {
                const TypeInfo::Read& r = ti.reads[i - 1];
                if (r.offset + r.size <= rec.size) h.value = read_field(r, data);
            }
        } else {
            h.value = slot_value(ti, rec, slot);
        }
    }
    ++out.next_record;
    out.added_head();
}

template void RecordDecoder::decode_as<true>(const RawRecord&, Batch&) const;
template void RecordDecoder::decode_as<false>(const RawRecord&, Batch&) const;

}  // namespace irqflow
