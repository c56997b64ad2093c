#!/usr/bin/env bash
# The bench_scale path at 1 M events, as a test: make_big_dat writes a ~1.1 M-event
# trace.dat that trace-cmd reads back record for record, and `stats` and `check` stream
# it with the counts of the sample times the repeats and no findings; `import` stores it,
# its progress (stderr is no terminal here) a plain line per slow step, never a \r.
# Usage: scale_smoke.sh MAKE_BIG_DAT IRQFLOW SAMPLE
set -euo pipefail
make_big=$1 irqflow=$2 sample=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/irqflow-scale-smoke.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$make_big" --events 1000000 "$sample" "$dir/big.dat" > /dev/null
events=$(cat "$dir/big.dat.events")
[ "$events" -ge 1000000 ] || { echo "make_big_dat wrote $events events"; exit 1; }
report=$(trace-cmd report "$dir/big.dat" 2>/dev/null | grep -c '^ ')
[ "$report" = "$events" ] || { echo "trace-cmd report reads $report records, make_big_dat says $events"; exit 1; }
"$irqflow" stats "$dir/big.dat" > "$dir/stats"
grep -q "^$events events over" "$dir/stats" || { echo "stats:"; head -3 "$dir/stats"; exit 1; }
"$irqflow" check "$dir/big.dat" > "$dir/check"  # exit 1 on findings fails the test
grep -q "^replay: 0 findings" "$dir/check" || { echo "check:"; cat "$dir/check"; exit 1; }
"$irqflow" import --db "$dir/s.db" "$dir/big.dat" > "$dir/import" 2> "$dir/import.err"
grep -q "^imported session 1 ($events events, 0 findings)" "$dir/import" || { echo "import:"; cat "$dir/import" "$dir/import.err"; exit 1; }
if grep -q $'\r' "$dir/import.err" || grep -vq '^irqflow import: ' "$dir/import.err"; then
  echo "import's stderr is not one plain line per step:"; cat -A "$dir/import.err"; exit 1
fi
echo "ok: $events events, trace-cmd and irqflow agree, check clean, import stored them"
