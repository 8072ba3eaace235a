#!/usr/bin/env bash
# Corruption soak (issue 17): damages one file of a durable store per trial (flipped bits, a zeroed sector, a cut, a
# deletion), reopens it and reads every key, in Checkpoint and Commit mode. Each trial must end with a typed refusal or
# exactly the acknowledged data (rules in test/KeyValueStore.Tests/Durability/CorruptionFuzzer.cs). Prints one table
# row per mode, file kind and damage: trials, refused naming the file, refused naming another file, intact, failed.
# Usage: scripts/corruption-soak.sh [TRIALS] [SEED]     default: 10000 trials per mode, a fresh seed (printed)
# Exit code 1 when any trial failed; the failing trials are listed with the seed that replays them.
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${1:-10000}"
seed="${2:-$RANDOM$RANDOM}"
echo "corruption soak: $trials trials per mode, seed $seed (replay: scripts/corruption-soak.sh $trials $seed)"
dotnet build test/KeyValueStore.Tests/KeyValueStore.Tests.csproj -c Release >/dev/null
KVSTORE_FUZZ_ALL=1 KVSTORE_FUZZ_TRIALS="$trials" KVSTORE_FUZZ_SEED="$seed" dotnet test test/KeyValueStore.Tests/KeyValueStore.Tests.csproj -c Release --no-build \
  --filter "FullyQualifiedName~CorruptionFuzzTests" --logger "console;verbosity=detailed" \
  | grep -E '^ *\| |trials failed|^(store|log|commits|info|.*\.json)|Passed!|Failed!' | grep -v '^\[xUnit'
