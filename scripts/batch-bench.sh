#!/usr/bin/env bash
# Batch benchmark (issue 7): atomic batches of 100 writes per second, this store against SQLite transactions of
# 100 rows, non-durable and durable, in the same run. Builds the load test once (Release), runs workload W (updates
# only) with --batch-size 100 against faster and sqlite (synchronous=NORMAL: neither makes a write durable on return),
# then faster-commit and sqlite-full (synchronous=FULL: a batch is durable when acknowledged), one run after another,
# and prints one markdown table: batches/s, writes/s, batch p50 and p99 latency, and FASTER / SQLite for each pair.
# The issue also names LiteDB; it is not in our package registry, so it is not measured.
#
# Usage: scripts/batch-bench.sh
#   BENCH_SECONDS=N     run phase of each run                   [10]
#   BENCH_RECORDS=N     records loaded before each run          [10000]
#   BENCH_THREADS=N     concurrent workers, each one batch in flight [8]
#   BENCH_BATCH_SIZE=N  writes per batch                        [100]
#   BENCH_DIR=DIR       put the runs' files in DIR (--dir) instead of the system temp directory. Durable writes are
#                       only measured on a real disk: the filesystem type is printed, and a tmpfs makes every flush free.
#
# Needs python3 to read the runs' --json reports. It is on the development machines but not guaranteed in CI; this
# script is not run in CI. Measure on a quiet machine: four runs of BENCH_SECONDS each, plus the loads.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${BENCH_SECONDS:-10}"
records="${BENCH_RECORDS:-10000}"
threads="${BENCH_THREADS:-8}"
batch_size="${BENCH_BATCH_SIZE:-100}"
# Pairs, FASTER first: the non-durable pair, then the durable one.
backends=(faster sqlite faster-commit sqlite-full)

command -v python3 >/dev/null || { echo "error: python3 is needed to read the JSON reports" >&2; exit 2; }

source scripts/bench-common.sh

for backend in "${backends[@]}"; do
  echo "== $backend, batches of $batch_size, $threads workers, $seconds s, $records records" >&2
  # The report goes to stderr with the progress: stdout is for the table alone. A bad setting exits 2 here.
  dotnet "$loadtest" --workload W --batch-size "$batch_size" --backend "$backend" --threads "$threads" \
    --seconds "$seconds" --records "$records" "${dir_args[@]}" --json "$reports/$backend.json" >&2
done

echo "Workload W (100% updates) in atomic batches of $batch_size, zipfian keys, $records records of 256 bytes," \
  "$threads workers, $seconds s per run; $(df -PT "$run_root" | awk 'NR == 2 { print $2 }') filesystem under $run_root;" \
  "$(nproc) cores; built from $commit."
echo
python3 - "$reports" <<'PYTHON'
import json, sys

reports = sys.argv[1]
# (FASTER, SQLite) pairs of equal durability; the ratio is of writes/s, the same as of batches/s at one batch size.
pairs = [("faster", "sqlite"), ("faster-commit", "sqlite-full")]
durability = {
    "faster": "none",
    "sqlite": "none (synchronous=NORMAL)",
    "faster-commit": "durable (Commit)",
    "sqlite-full": "durable (synchronous=FULL)",
}


def load(backend):
    with open(f"{reports}/{backend}.json") as file:
        batches = json.load(file)["batches"]
    return batches["batchesPerSecond"], batches["writesPerSecond"], batches["latencyMicroseconds"]


print("| Backend | Durability | Batches/s | Writes/s | Batch p50 us | Batch p99 us | FASTER / SQLite |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for faster, sqlite in pairs:
    faster_rate = load(faster)[1]
    sqlite_rate = load(sqlite)[1]
    for backend in (faster, sqlite):
        batches, writes, latency = load(backend)
        if backend == faster:
            ratio = f"{faster_rate / sqlite_rate:.1f}x" if sqlite_rate > 0 else "n/a"
        else:
            ratio = "(baseline)"
        print(f"| {backend} | {durability[backend]} | {batches:,.0f} | {writes:,.0f} | {latency['p50']:,.1f} | {latency['p99']:,.1f} | {ratio} |")
PYTHON
