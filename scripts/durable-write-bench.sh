#!/usr/bin/env bash
# Durable-write benchmark (issue 4): durable upserts per second with 1, 4 and 64 concurrent writers, this store
# in Commit mode (faster-commit) against SQLite in WAL mode with synchronous=FULL, one row per transaction
# (sqlite-full), and flushes per write. Builds the load test once (Release), runs workload W (updates only) for each
# backend and writer count, one run after another, and prints one markdown table.
#
# Usage: scripts/durable-write-bench.sh [SECONDS] [RECORDS]
#   SECONDS  run phase of each run          [$BENCH_SECONDS, else 10]
#   RECORDS  records loaded before each run [$BENCH_RECORDS, else 10000]
#   BENCH_DIR=DIR puts the runs' files in DIR (--dir) instead of the system temp directory. Durable writes are only
#   measured on a real disk: the filesystem type is printed, and a tmpfs makes every flush free.
#
# Needs python3 to read the runs' --json reports. It is on the development machines but not guaranteed in CI; this
# script is not run in CI. Measure on a quiet machine: six runs of SECONDS each, plus the loads.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-${BENCH_SECONDS:-10}}"
records="${2:-${BENCH_RECORDS:-10000}}"
backends=(faster-commit sqlite-full)
threads=(1 4 64)

command -v python3 >/dev/null || { echo "error: python3 is needed to read the JSON reports" >&2; exit 2; }

source scripts/bench-common.sh

for backend in "${backends[@]}"; do
  for t in "${threads[@]}"; do
    # Each run starts with the previous run's files written back and deleted, so one run's I/O does not land in the next.
    sync
    sleep 3
    echo "== $backend, $t writers, $seconds s, $records records" >&2
    # The report goes to stderr with the progress: stdout is for the table alone.
    dotnet "$loadtest" --workload W --backend "$backend" --threads "$t" --seconds "$seconds" --records "$records" \
      "${dir_args[@]}" --json "$reports/$backend-$t.json" >&2
  done
done

echo "Workload W (100% updates), zipfian keys, $records records of 256 bytes, $seconds s per run;" \
  "$(df -PT "$run_root" | awk 'NR == 2 { print $2 }') filesystem under $run_root; $(nproc) cores; built from $commit."
echo
python3 - "$reports" "${backends[*]}" "${threads[*]}" <<'EOF'
import json, sys

reports, backends, threads = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
baseline = "sqlite-full"


def load(backend, t):
    with open(f"{reports}/{backend}-{t}.json") as file:
        report = json.load(file)
    update = next(op for op in report["operations"] if op["type"] == "update")
    flushes = report.get("durableFlushes") or {}
    return update["operationsPerSecond"], update["latencyMicroseconds"], flushes.get("flushesPerWrite")


print(f"| Backend | Writers | Writes/s | Update p50 us | Update p99 us | Flushes per write | vs {baseline} |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for t in threads:
    base_rate = load(baseline, t)[0]
    for backend in backends:
        rate, latency, per_write = load(backend, t)
        ratio = f"{rate / base_rate:.1f}x" if base_rate > 0 else "n/a"
        per_write = "n/a" if per_write is None else f"{per_write:.4f}"
        print(f"| {backend} | {t} | {rate:,.0f} | {latency['p50']:,.1f} | {latency['p99']:,.1f} | {per_write} | {ratio} |")
EOF
