#!/usr/bin/env bash
# Small trace.dat seeds for fuzz_dat: the first events of real samples, cut with
# `trace-cmd split` so each keeps its real headers (v7 zstd, a buffer instance, lost
# events), and a v6 file whose headers trace-cmd rebuilt small (small_v6 below).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cut() {  # SAMPLE EVENTS NAME
    trace-cmd split -i "../../samples/$1.dat" -e "$2" -o "$tmp/$3.dat" >/dev/null 2>&1
    mv "$tmp/$3.dat.1" "seeds/dat/$3.dat"
}
cut pveoi-on 300 v7-zstd
cut instance 200 v7-instance
cut lost 200 v7-lost

# The v6 sample's own headers are 132 KB (every kvm event format, 45 KB of kallsyms,
# printk formats), which fuzz_dat copied on every execution of its slowest seed
# (tests/fuzz/README.md). So: two pages per CPU of a window where both
# vCPUs take timer interrupts, IPIs and PV EOIs, kept byte for byte, under headers that
# `trace-cmd restore -c` writes from a tracing directory holding only the kvm formats
# irqflow decodes or the window uses, three ftrace formats and a few kallsyms lines;
# `trace-cmd convert` then writes it as v6 (restore writes v7).
small_v6() {
    local src=../../samples/pveoi-on-midflight-v6.dat win=$tmp/win.dat.1 td=$tmp/tracing
    trace-cmd split -i "$src" -o "$tmp/win.dat" -c -p 2 16.996 17.05 >/dev/null 2>&1
    mkdir -p "$td/events"
    # dump prints each header after a title line, with one newline more than the file had
    for h in page event; do
        trace-cmd dump --head-$h -i "$win" 2>/dev/null | tail -n +2 | head -c -1 >"$td/events/header_$h"
    done
    local keep
    keep="$(trace-cmd report "$win" 2>/dev/null | awk '{print $4}' | tr -d : | sort -u)
$(grep -rhoE '"kvm_[a-z_0-9]+"' ../../capture/src | tr -d '"' | sort -u) print bprint function"
    split_formats() {  # DIR: one format file per event named in $keep
        awk -v dir="$1" -v keep="$keep" '
            BEGIN { n = split(keep, k); for (i = 1; i <= n; i++) want[k[i]] = 1 }
            /^name: / { out = ($2 in want) ? dir "/" $2 : ""; if (out != "") system("mkdir -p " out) }
            out != "" { print > (out "/format") }'
    }
    trace-cmd dump --events -i "$win" 2>/dev/null | tail -n +2 | split_formats "$td/events/kvm"
    trace-cmd dump --ftrace-events -i "$win" 2>/dev/null | tail -n +2 | split_formats "$td/events/ftrace"
    trace-cmd dump --cmd-lines -i "$win" 2>/dev/null | tail -n +2 >"$td/saved_cmdlines"
    : >"$td/printk_formats"
    trace-cmd dump --kallsyms -i "$win" 2>/dev/null | grep -E ' [Tt] (kvm_apic|kvm_lapic|apic_)' | head -40 >"$tmp/kallsyms"
    # each CPU's pages, as the flyrecord section locates them
    local cpus=()
    while read -r off size; do
        tail -c +$((off + 1)) "$win" | head -c "$size" >"$tmp/cpu${#cpus[@]}"
        cpus+=("$tmp/cpu${#cpus[@]}")
    done < <(trace-cmd dump --flyrecord -i "$win" 2>/dev/null | awk '/size of cpu/ {print $1, $2}')
    trace-cmd restore -c -t "$td" -k "$tmp/kallsyms" -o "$tmp/partial.dat" >/dev/null 2>&1
    trace-cmd restore -i "$tmp/partial.dat" -o "$tmp/v7.dat" "${cpus[@]}" >/dev/null 2>&1
    trace-cmd convert -i "$tmp/v7.dat" --file-version 6 --compression none -o seeds/dat/v6.dat >/dev/null 2>&1
    # the same events as the window they came from
    cmp <(trace-cmd report "$win" 2>/dev/null | tail -n +2) <(trace-cmd report seeds/dat/v6.dat 2>/dev/null | tail -n +2)
}
small_v6
