#!/usr/bin/env bash
# bench_fleet against a throwaway PostgreSQL 15 server (.ci/pg-server), stopped after.
#   bench_fleet.sh BENCH_FLEET SOURCE_DIR [bench_fleet options]
set -euo pipefail
bench=$1 src=$2
shift 2
dir=$(mktemp -d)
trap 'bash "$src/.ci/pg-server" stop "$dir"; rm -rf "$dir"' EXIT
uri=$(bash "$src/.ci/pg-server" start "$dir")
"$bench" "$uri" "$@"
