# Shared by the load-test benchmark scripts (durable-write-bench.sh, batch-bench.sh); sourced, not run.
# Builds the load test once (Release) and sets:
#   loadtest  the built CLI to run with `dotnet`
#   reports   a temporary directory for the runs' --json files, removed on exit
#   dir_args  (--dir "$BENCH_DIR") when BENCH_DIR is set, so the runs' stores live there
#   run_root  the directory the stores live under, whose filesystem the table names
#   commit    the build measured, for the line above the table
export DOTNET_CLI_TELEMETRY_OPTOUT=1
export DOTNET_NOLOGO=1
dotnet build perf/KeyValueStore.LoadTest/KeyValueStore.LoadTest.csproj -c Release >&2
loadtest=perf/KeyValueStore.LoadTest/bin/Release/net10.0/KeyValueStore.LoadTest.dll

reports="$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")"
trap 'rm -rf "$reports"' EXIT
dir_args=()
run_root="${TMPDIR:-/tmp}"
if [[ -n "${BENCH_DIR:-}" ]]; then
  mkdir -p "$BENCH_DIR"
  dir_args=(--dir "$BENCH_DIR")
  run_root="$BENCH_DIR"
fi

commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
[[ -z "$(git status --porcelain -- src perf 2>/dev/null)" ]] || commit="$commit with uncommitted changes"
