#!/usr/bin/env bash
# Long crash soak: kill the crash worker with SIGKILL CYCLES times per durability mode and check every recovery
# against what the worker acknowledged (rules in test/KeyValueStore.CrashHarness/CrashChecker.cs).
# Usage: scripts/crash-soak.sh [CYCLES] [MODES...]     default: 1000 cycles, Commit and Checkpoint
set -euo pipefail
cd "$(dirname "$0")/.."
cycles="${1:-1000}"
shift || true
modes=("${@:-Commit Checkpoint}")
dotnet build test/KeyValueStore.CrashHarness/KeyValueStore.CrashHarness.csproj -c Release
for mode in ${modes[@]}; do
  dotnet test/KeyValueStore.CrashHarness/bin/Release/net10.0/KeyValueStore.CrashHarness.dll soak --cycles "$cycles" --mode "$mode"
done
