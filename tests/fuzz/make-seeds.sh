#!/usr/bin/env bash
# Small trace.dat seeds for fuzz_dat: the first events of real samples, cut with
# `trace-cmd split` so each keeps its real headers (v7 zstd, v6, a buffer instance).
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cut() {  # SAMPLE EVENTS NAME
    trace-cmd split -i "../../samples/$1.dat" -e "$2" -o "$tmp/$3.dat" >/dev/null 2>&1
    mv "$tmp/$3.dat.1" "seeds/dat/$3.dat"
}
cut pveoi-on 300 v7-zstd
cut pveoi-on-midflight-v6 200 v6
cut instance 200 v7-instance
cut lost 200 v7-lost
