#!/usr/bin/env bash
# Refreshes a library's PublicAPI.Unshipped.txt from the public API analyzer's own diagnostics.
#
#   scripts/update-public-api.sh                      # the core library, src/KeyValueStore
#   scripts/update-public-api.sh src/KeyValueStore.X  # another library that imports build/Library.props
#
# Why: Microsoft.CodeAnalysis.PublicApiAnalyzers fails the build (warnings are errors) when the public API
# and the PublicAPI.*.txt files disagree. After an intended API change, run this script, then read the
# diff of PublicAPI.Unshipped.txt: it is the API change a reviewer signs off.
#
# How: one full rebuild of the library with warnings left as warnings collects, for every target framework,
#   RS0016  "Symbol 'X' is not part of the declared public API"  -> X is added to Unshipped;
#   RS0017  "Symbol 'X' is part of the declared API, but is either not public or could not be found"
#           -> X is removed from Unshipped, or, if X had shipped, "*REMOVED*X" is added to Unshipped.
# The analyzer's message carries the exact line the file needs, so no API text is made up here. The file is
# then sorted, and a second rebuild must come back clean.
#
# Multi-targeting: the library builds for several target frameworks and all of them share one pair of
# files, so their public API must be the same. The script fails, naming the symbols, if one target
# framework reports a symbol another does not.
#
# Moving Unshipped lines to PublicAPI.Shipped.txt at a release is a manual step; this script never does it.
set -euo pipefail
cd "$(dirname "$0")/.."

project_dir="${1:-src/KeyValueStore}"
project_dir="${project_dir%/}"
shopt -s nullglob
projects=("$project_dir"/*.csproj)
if [[ ${#projects[@]} -ne 1 ]]; then
    echo "update-public-api: expected exactly one .csproj in '$project_dir'" >&2
    exit 2
fi
project="${projects[0]}"
shipped="$project_dir/PublicAPI.Shipped.txt"
unshipped="$project_dir/PublicAPI.Unshipped.txt"
for file in "$shipped" "$unshipped"; do
    [[ -f "$file" ]] || printf '#nullable enable\n' > "$file"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Builds the library from scratch (an incremental build would skip the compiler and report nothing) and
# writes the diagnostics of the given IDs as "<target framework><TAB><API line>" to $2.
collect() {
    local ids="$1" out="$2" log="$work/build.log"
    # The file logger neither wraps lines nor summarises; warnings stay warnings so one run reports all.
    if ! dotnet build "$project" -c Release --no-incremental -nologo -tl:off -v:q \
        -p:TreatWarningsAsErrors=false \
        -flp:"logfile=$log;verbosity=quiet" > "$work/console.log" 2>&1; then
        # Errors other than the analyzer's mean the code does not compile: nothing to learn from it.
        if grep -E ': error ' "$log" | grep -qvE "error ($ids):"; then
            grep -E ': error ' "$log" | sort -u >&2
            echo "update-public-api: the build failed for reasons other than the public API (above)" >&2
            exit 1
        fi
    fi
    python3 - "$ids" "$log" "$out" <<'PY'
import re, sys
ids, log, out = sys.argv[1], sys.argv[2], sys.argv[3]
pattern = re.compile(
    r": (?:warning|error) (" + ids + r"): Symbol '(.*)' is (?:not part of the declared public API"
    r"|part of the declared API, but is either not public or could not be found).*"
    r"::TargetFramework=([^;\]\s]+)")
rows = set()
for line in open(log, encoding="utf-8"):
    match = pattern.search(line)
    if match:
        rows.add((match.group(3), match.group(1), match.group(2)))
with open(out, "w", encoding="utf-8") as f:
    for tfm, rule, symbol in sorted(rows):
        f.write(f"{tfm}\t{rule}\t{symbol}\n")
PY
}

collect 'RS0016|RS0017' "$work/diagnostics.tsv"
frameworks="$(dotnet msbuild "$project" -nologo -getProperty:TargetFrameworks)"
[[ -n "$frameworks" ]] || frameworks="$(dotnet msbuild "$project" -nologo -getProperty:TargetFramework)"

python3 - "$work/diagnostics.tsv" "$shipped" "$unshipped" "$frameworks" <<'PY'
import sys
diagnostics, shipped_path, unshipped_path, frameworks = sys.argv[1:5]

# A target framework without diagnostics still counts: it is the one that lacks a symbol the others report.
by_tfm = {tfm.strip(): set() for tfm in frameworks.split(";") if tfm.strip()}
for row in open(diagnostics, encoding="utf-8"):
    tfm, rule, symbol = row.rstrip("\n").split("\t", 2)
    by_tfm.setdefault(tfm, set()).add((rule, symbol))

if not any(by_tfm.values()):
    print("update-public-api: the public API files already match the code; nothing to do")
    sys.exit(0)

# Every target framework must ask for the same change, or the shared files cannot satisfy all of them.
everything = set().union(*by_tfm.values())
uneven = sorted(d for d in everything if any(d not in s for s in by_tfm.values()))
if uneven and len(by_tfm) > 1:
    print("update-public-api: the target frameworks do not have the same public API:", file=sys.stderr)
    for rule, symbol in uneven:
        present = ", ".join(t for t, s in sorted(by_tfm.items()) if (rule, symbol) in s)
        print(f"  {rule} only for {present}: {symbol}", file=sys.stderr)
    print("Make the API the same for every target framework (or give each its own PublicAPI files).",
          file=sys.stderr)
    sys.exit(1)

def read(path):
    lines = [l.rstrip("\n") for l in open(path, encoding="utf-8")]
    return [l for l in lines if l.strip() and l.strip() != "#nullable enable"]

shipped = set(read(shipped_path))
unshipped = set(read(unshipped_path))
added = removed = 0
for rule, symbol in everything:
    if rule == "RS0016":
        if symbol not in unshipped:
            unshipped.add(symbol)
            added += 1
    elif symbol in unshipped:
        unshipped.discard(symbol)
        removed += 1
    elif symbol in shipped:
        unshipped.add("*REMOVED*" + symbol)
        removed += 1

with open(unshipped_path, "w", encoding="utf-8", newline="\n") as f:
    f.write("#nullable enable\n")
    for line in sorted(unshipped):
        f.write(line + "\n")
print(f"update-public-api: {unshipped_path}: {added} added, {removed} removed")
PY

# The files must now satisfy the analyzer (any of its RS00xx rules) for every target framework.
collect 'RS00[0-9][0-9]' "$work/remaining.tsv"
if grep -qE ': (warning|error) RS00[0-9][0-9]:' "$work/build.log"; then
    echo "update-public-api: the public API analyzer still reports:" >&2
    grep -E ': (warning|error) RS00[0-9][0-9]:' "$work/build.log" | sort -u >&2
    exit 1
fi
echo "update-public-api: clean for every target framework"
