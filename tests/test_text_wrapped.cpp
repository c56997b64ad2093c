// Pasted text as it really arrives (capture/README.md, "Reading pasted text"): wrapped
// by mail clients anywhere in a record, quoted, annotated, cut. A wrapped text must give
// exactly the events of the same text unwrapped, and a record that lost a field says so.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "helpers.hpp"
#include "irqflow/capture/readers.hpp"
#include "mail_wrap.hpp"
#include "text_helpers.hpp"

using namespace irqflow;
using namespace irqflow::test;

namespace {

bool warned(const Trace& t, const std::string& what) {
    return std::any_of(t.meta.warnings.begin(), t.meta.warnings.end(), [&](const std::string& w) { return w.find(what) != std::string::npos; });
}

// The lines a text's warnings name as skipped annotations ("" when none are).
std::string annotation_warning(const Trace& t) {
    for (const auto& w : t.meta.warnings)
        if (w.find("annotations") != std::string::npos) return w;
    return "";
}

}  // namespace

TEST_CASE("every way a mail client wraps a real capture's report gives the events of the unwrapped report", "[text][wrapped][samples]") {
    const std::string report = run("trace-cmd report -t '" + sample("pveoi-on-midflight-v6.dat") + "'").out;
    const Trace plain = load_text(report, "plain.txt");
    REQUIRE(plain.events.size() > 30000);
    for (const WrapStyle style : kWrapStyles)
        for (const std::size_t width : {72, 76, 80}) {
            INFO(to_string(style) << " at " << width << " columns");
            const std::string wrapped = mail_wrap(report, style, width, static_cast<unsigned>(width));
            REQUIRE(wrapped != report);
            const Trace t = load_text(wrapped, "wrapped.txt");
            const bool mid_token = style == WrapStyle::MidToken || style == WrapStyle::Mixed;
            require_identical_events(plain, t, !mid_token);
            CHECK(annotation_warning(t).empty());  // every line was read as part of an event
            CHECK(t.meta.notes.size() == 1);       // "N wrapped lines joined …"
        }
}

TEST_CASE("each shape a wrapped record takes reads as the record unwrapped", "[text][wrapped]") {
    // Records of a VMX host as trace-cmd prints them, then each broken the way the
    // issue's bug reports show it.
    const std::string plain =
        "  <...>-3441924 [004] .... 1907374.582979: kvm_entry: vcpu 1, rip 0xffffffffc0771aa2\n"
        "  <...>-3441924 [004] .... 1907374.582981: kvm_exit: reason EPT_VIOLATION rip 0xffffffffc0771aa2 info 683 800000ec\n"
        "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec [reinjected]\n"
        "  <...>-3441930 [006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 vec 209 (Fixed|edge)\n"
        "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason KVM_EXIT_IOAPIC_EOI (26)\n";
    const Trace want = load_text(plain, "plain.txt");
    REQUIRE(want.events.size() == 5);
    REQUIRE(want.events[2].get(slot::inj_reinjected) == 1);
    struct Shape {
        const char* what;
        std::string text;
    };
    const Shape shapes[] = {
        {"the body continued flush left, the break's space dropped",
         "  <...>-3441924 [004] .... 1907374.582979: kvm_entry: vcpu 1, rip\n0xffffffffc0771aa2\n"
         "  <...>-3441924 [004] .... 1907374.582981: kvm_exit: reason\nEPT_VIOLATION rip 0xffffffffc0771aa2 info 683 800000ec\n"
         "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec\n[reinjected]\n"
         "  <...>-3441930 [006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 vec 209\n(Fixed|edge)\n"
         "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason\nKVM_EXIT_IOAPIC_EOI (26)\n"},
        {"a first part that parses on its own (an older kernel's shorter format)",
         "  <...>-3441924 [004] .... 1907374.582979: kvm_entry: vcpu 1, rip 0xffffffffc0771aa2\n"
         "  <...>-3441924 [004] .... 1907374.582981: kvm_exit: reason EPT_VIOLATION rip 0xffffffffc0771aa2\ninfo 683 800000ec\n"
         "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec\n[reinjected]\n"
         "  <...>-3441930 [006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 vec 209 (Fixed|edge)\n"
         "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason KVM_EXIT_IOAPIC_EOI (26)\n"},
        {"the break before the event name",
         "  <...>-3441924 [004] .... 1907374.582979:\nkvm_entry: vcpu 1, rip 0xffffffffc0771aa2\n"
         "  <...>-3441924 [004] .... 1907374.582981:\n    kvm_exit: reason EPT_VIOLATION rip 0xffffffffc0771aa2 info 683 800000ec\n"
         "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec [reinjected]\n"
         "  <...>-3441930 [006] .... 1907374.582990:\nkvm_apic_accept_irq: apicid 0 vec 209 (Fixed|edge)\n"
         "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason KVM_EXIT_IOAPIC_EOI (26)\n"},
        {"broken inside the header: before the timestamp, inside it, inside the event's name",
         "  <...>-3441924 [004] ....\n1907374.582979: kvm_entry: vcpu 1, rip 0xffffffffc0771aa2\n"
         "  <...>-3441924 [004] .... 19073\n74.582981: kvm_exit: reason EPT_VIOLATION rip 0xffffffffc0771aa2 info 683 800000ec\n"
         "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_v\nirq: IRQ 0xec [reinjected]\n"
         "  <...>-3441930\n[006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 vec 209 (Fixed|edge)\n"
         "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason KVM_EXIT_IOAPIC_EOI (26)\n"},
        {"broken again mid-token, at the column (as fold -w 64 does)", mail_wrap(plain, WrapStyle::MidToken, 64)},
        {"format=flowed: a trailing space before each break",
         "  <...>-3441924 [004] .... 1907374.582979: kvm_entry: vcpu 1, rip \n0xffffffffc0771aa2\n"
         "  <...>-3441924 [004] .... 1907374.582981: kvm_exit: reason EPT_VIOLATION \nrip 0xffffffffc0771aa2 info 683 \n800000ec\n"
         "  <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec \n[reinjected]\n"
         "  <...>-3441930 [006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 \nvec 209 (Fixed|edge)\n"
         "  <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason \nKVM_EXIT_IOAPIC_EOI (26)\n"},
        {"an indented continuation, quoted in a reply",
         "> <...>-3441924 [004] .... 1907374.582979: kvm_entry: vcpu 1, rip\n>     0xffffffffc0771aa2\n"
         "> <...>-3441924 [004] .... 1907374.582981: kvm_exit: reason EPT_VIOLATION rip\n>     0xffffffffc0771aa2 info 683 800000ec\n"
         "> <...>-3441924 [004] .... 1907374.582983: kvm_inj_virq: IRQ 0xec\n>\t[reinjected]\n"
         "> <...>-3441930 [006] .... 1907374.582990: kvm_apic_accept_irq: apicid 0 vec 209\n(Fixed|edge)\n"
         "> <...>-3441924 [004] .... 1907374.582994: kvm_userspace_exit: reason KVM_EXIT_IOAPIC_EOI (26)\n"},
    };
    for (const auto& s : shapes) {
        INFO(s.what << ":\n" << s.text);
        const Trace t = load_text(s.text, "shape.txt");
        require_identical_events(want, t);
        CHECK(annotation_warning(t).empty());
        CHECK(t.meta.warnings.empty());
    }
}

TEST_CASE("annotations, elisions and other subsystems' events between wrapped records stay apart from them", "[text][wrapped]") {
    const std::string text =
        "Hi, with 6.8 the guest hangs once a day. Before the hang the trace shows\n"
        "this (trimmed):\n"
        "\n"
        "  <idle>-0       [004] d..2. 1907374.582970: sched_switch: prev_comm=swapper/4\n"
        "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=CPU 1/KVM next_pid=3441924\n"
        "next_prio=120\n"
        "  CPU 1/KVM-3441924 [004] d..2. 1907374.582979: kvm_entry: vcpu 1, rip\n"
        "0xffffffffc0771aa2\n"
        "  CPU 1/KVM-3441924 [004] d..2. 1907374.582981: kvm_exit: reason EPT_VIOLATION rip\n"
        "0xffffffffc0771aa2 info 683 800000ec\n"
        "<--- the timer's delivery hits this fault every time\n"
        "  CPU 1/KVM-3441924 [004] d..2. 1907374.582983: kvm_inj_virq: IRQ 0xec\n"
        "[reinjected]\n"
        ".....\n"
        "  CPU 1/KVM-3441924 [004] d..2. 1907374.583983: kvm_inj_virq: IRQ 0xec\n"
        "[reinjected]\n"
        "and it never gets out of this.\n";
    const Trace t = load_text(text, "annotated.txt");
    REQUIRE(t.events.size() == 5);
    CHECK(t.name(t.events[0].name_id) == "sched_switch");
    CHECK(t.raw_of(t.events[0]).find("next_prio=120") != std::string_view::npos);  // its wrapped half joined back
    CHECK(t.events[2].get(slot::exit_info2) == 0x800000ec);
    CHECK(t.events[3].get(slot::inj_reinjected) == 1);
    CHECK(t.events[4].get(slot::inj_reinjected) == 1);
    CHECK(t.source_lines == std::vector<std::uint32_t>{4, 7, 9, 12, 15});
    // every line read as no event is named
    CHECK(warned(t, "non-event lines (annotations) skipped (lines 1, 2, 11, 17)"));
    CHECK(warned(t, "1 elision mark (line 14): events were left out there"));
}

TEST_CASE("a record missing a field is completed from its next line or reported with its line, never half-read in silence", "[text][wrapped]") {
    SECTION("cut short at the end of the excerpt") {
        const Trace t = load_text(
            "  CPU 1/KVM-61822   [012] d..2. 15331.402100: kvm_inj_virq: IRQ 0xec\n"
            "  CPU 1/KVM-61822   [012] d..2. 15331.402110: kvm_exit: vcpu 1 reason EPT_VIOLATION rip 0xffffffffa7e0c4d5 info1\n",
            "cut-end.txt");
        REQUIRE(t.events.size() == 2);
        CHECK(t.events[1].kind == EventKind::Exit);  // kept as the exit it is, with what it has
        CHECK(t.events[1].get(slot::exit_reason) == 48);
        CHECK(t.events[1].get(slot::exit_rip) == static_cast<std::int64_t>(0xffffffffa7e0c4d5ULL));
        CHECK_FALSE(t.events[1].has(slot::exit_info1));
        CHECK(warned(t, "1 record is cut short and kept with the fields before the cut: line 2 (kvm_exit, from info1 on)"));
    }
    SECTION("a value cut mid-token is not taken at its cut length") {
        const Trace t = load_text("  CPU 1/KVM-61822   [012] d..2. 15331.402100: kvm_apic_accept_irq: apicid 1 vec 2\n", "cut-vec.txt");
        REQUIRE(t.events.size() == 1);
        CHECK(t.events[0].kind == EventKind::ApicAcceptIrq);
        CHECK_FALSE(t.events[0].has(slot::accept_vec));  // 2 of 209? unknown
        CHECK(warned(t, "line 1 (kvm_apic_accept_irq, from vec on)"));
    }
    SECTION("a record printing fewer fields than the text's others of its kind, its rest lost") {
        const Trace t = load_text(
            "  CPU 1/KVM-61822   [012] .... 15331.402100: kvm_exit: reason EPT_VIOLATION rip 0xffffffffa7e0c4d5 info 181 0\n"
            "  CPU 1/KVM-61822   [012] .... 15331.402110: kvm_exit: reason EPT_VIOLATION rip 0xffffffffa7e0c4d5\n"
            "  CPU 1/KVM-61822   [012] .... 15331.402120: kvm_exit: reason EPT_VIOLATION rip 0xffffffffa7e0c4d5 info 181 0\n",
            "short.txt");
        REQUIRE(t.events.size() == 3);
        CHECK_FALSE(t.events[1].has(slot::exit_info1));
        CHECK(warned(t, "1 kvm_exit record (line 2) lack info1, info2, which the text's other kvm_exit records print"));
    }
    SECTION("every record of the text in one format: nothing to say") {
        const Trace t = load_text(
            "  CPU 1/KVM-61822   [012] .... 15331.402110: kvm_exit: reason EPT_VIOLATION rip 0xffffffffa7e0c4d5\n"
            "  CPU 1/KVM-61822   [012] .... 15331.402120: kvm_exit: reason EXTERNAL_INTERRUPT rip 0xffffffffa7e0c4d5\n",
            "old.txt");
        CHECK(t.meta.warnings.empty());
    }
    SECTION("the first line cut inside its task column") {
        const Trace t = load_text(
            "61822   [012] d..2. 15331.402100: kvm_inj_virq: IRQ 0xec\n"
            "  CPU 1/KVM-61822   [012] d..2. 15331.402102: kvm_entry: vcpu 1, rip 0xffffffffa7e0c4d5\n",
            "cut-start.txt");
        CHECK(t.events.size() == 1);
        CHECK(warned(t, "1 event line cut short at the text's start or end, ignored (line 1)"));
    }
}
