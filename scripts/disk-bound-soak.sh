#!/usr/bin/env bash
# Disk-bound soak (issue 18): overwrites every key of a store round after round, as fast as the writers go, with the
# scheduled compactor, and fails when a round past the first quarter ends with the disk over RATIO times the live data.
# The unit test OverwriteHeavyWorkload_AfterCompaction_FilesHoldAtMostThreeTimesTheLiveData is its short form in CI.
# Usage: scripts/disk-bound-soak.sh [ROUNDS] [RATIO] [KEYS]     default: 200 rounds, 3, 10000 keys of 1 KB
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-200}"
ratio="${2:-3}"
keys="${3:-10000}"
dotnet build perf/KeyValueStore.Benchmarks/KeyValueStore.Benchmarks.csproj -c Release >/dev/null
dotnet run -c Release --no-build --project perf/KeyValueStore.Benchmarks -- disk-timeline --rounds "$rounds" --keys "$keys" --rate 0 --skip-off --fail-above "$ratio"
