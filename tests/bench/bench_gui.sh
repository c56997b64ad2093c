#!/usr/bin/env bash
# GUI frame times under Xvfb (software OpenGL): the committed sample, then the 10 M-event
# session bench_storage left in its database. Usage: bench_gui.sh IRQFLOW_GUI SAMPLE [DB]
set -euo pipefail
gui=$1 sample=$2 db=${3:-${TMPDIR:-/tmp}/irqflow-bench.db}  # where bench_storage writes it
if ! command -v xvfb-run >/dev/null; then echo "bench_gui: xvfb-run not installed, skipped"; exit 0; fi
run() { /usr/bin/time -f "  %e s from start to the last frame, %M KB peak RSS" \
        xvfb-run -a -s '-screen 0 1600x1200x24' "$gui" --bench-frames 300 "$@"; }
run --size 1400x330 "$sample"
if [ -f "$db" ]; then
  run --size 1400x330 "$db"
  run --panels --tab events "$db"
else
  echo "bench_gui: $db not there (bench_storage makes it): 10 M-event run skipped"
fi
