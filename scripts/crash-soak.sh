#!/usr/bin/env bash
# Long crash soak: kill the crash worker with SIGKILL CYCLES times per durability mode and check every recovery
# against what the worker acknowledged (rules in test/KeyValueStore.CrashHarness/CrashChecker.cs).
# Usage: scripts/crash-soak.sh [CYCLES] [MODES...]     default: 1000 cycles, Commit and Checkpoint
#        POWER_CUT=1 scripts/crash-soak.sh ...         power cuts instead of SIGKILL (writes in flight lost or torn)
#        FAILING_DISK=1 scripts/crash-soak.sh ...      a disk that fails under the running store instead (every writer must stop with StoreFaultedException)
#        WAL_ELSEWHERE=1 scripts/crash-soak.sh ...     Commit mode's write-ahead log in a directory of its own (WriteAheadLogDirectory)
# Each run draws a fresh seed and prints it; add --seed S to the harness command below to replay one.
set -euo pipefail
cd "$(dirname "$0")/.."
cycles="${1:-1000}"
shift || true
modes=("${@:-Commit Checkpoint}")
dotnet build test/KeyValueStore.CrashHarness/KeyValueStore.CrashHarness.csproj -c Release
for mode in ${modes[@]}; do
  dotnet test/KeyValueStore.CrashHarness/bin/Release/net10.0/KeyValueStore.CrashHarness.dll soak --cycles "$cycles" --mode "$mode" ${POWER_CUT:+--power-cut} ${FAILING_DISK:+--failing-disk} ${WAL_ELSEWHERE:+--wal-elsewhere}
done
