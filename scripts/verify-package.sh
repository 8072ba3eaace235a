#!/usr/bin/env bash
# Proves the KeyValueStore NuGet package is whole and usable, the way a user would get it.
#
#   scripts/verify-package.sh        (CI runs it from .ci/run; about half a minute)
#
# 1. Packs src/KeyValueStore in Release into a temporary folder.
# 2. Checks the .nupkg: README.md, License.md, the DLL and XML docs for net8.0 and net10.0, and the
#    dependencies in its nuspec (the library's four runtime packages; none of the build-time ones:
#    the analyzers, SourceLink). Checks the .snupkg
#    exists and that its PDBs carry a SourceLink map.
#    Packs the add-ons (src/KeyValueStore.Extensions.DependencyInjection, src/KeyValueStore.Redis) at the same version
#    and checks their files and that each depends on exactly that version of KeyValueStore; the consumer below uses
#    both (a distributed cache; a Redis store that reports an unreachable server with its typed exception).
# 3. Builds and runs test/KeyValueStore.PackageConsumer against that package, by id and version, for each
#    target framework: it opens a checkpointed store, writes, reads, reopens and reads again.
#
# Stale packages: the package gets a version no earlier run used, 0.1.0-verify.<UTC time>.<pid> (the
# VersionPrefix plus a prerelease label, set with PackageVersion so the assemblies are not rebuilt). NuGet's
# global packages folder caches by id and version, so a package cached by an earlier run can never stand in
# for this one; the script checks that the restored copy came from the temporary folder and deletes it from
# the cache afterwards. (A separate NUGET_PACKAGES folder would also work, but would download FASTER,
# MessagePack and the rest on every run.)
#
# Package sources: the consumer's NuGet.config adds only the temporary folder and does not clear the
# sources configured on this machine, so the library's own dependencies come from the usual registry.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

fail() {
    echo "verify-package: FAILED: $*" >&2
    exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/kvs-verify-package.XXXXXX")"
version_prefix="$(dotnet msbuild src/KeyValueStore/KeyValueStore.csproj -nologo -getProperty:VersionPrefix)"
version="${version_prefix}-verify.$(date -u +%Y%m%d%H%M%S).$$"
global_packages="$(dotnet nuget locals global-packages --list | sed -n 's/^global-packages: //p')"
[[ -n "$global_packages" ]] || fail "could not find NuGet's global packages folder (dotnet nuget locals global-packages --list)"
cleanup() {
    local id
    rm -rf "$work"
    for id in keyvaluestore keyvaluestore.extensions.dependencyinjection keyvaluestore.redis; do
        rm -rf "${global_packages:?}/$id/$version"
        rmdir "$global_packages/$id" 2>/dev/null || true
    done
}
trap cleanup EXIT

feed="$work/feed"
echo "verify-package: packing KeyValueStore $version into $feed"
dotnet pack src/KeyValueStore/KeyValueStore.csproj -c Release -o "$feed" -p:PackageVersion="$version" \
    -nologo -tl:off -v:q -clp:NoSummary \
    || fail "dotnet pack failed"

nupkg="$feed/KeyValueStore.$version.nupkg"
snupkg="$feed/KeyValueStore.$version.snupkg"
[[ -f "$nupkg" ]] || fail "no package at $nupkg"
[[ -f "$snupkg" ]] || fail "no symbol package at $snupkg (IncludeSymbols/SymbolPackageFormat in build/Library.props)"

python3 - "$nupkg" "$snupkg" <<'PY'
import re, sys, zipfile
import xml.etree.ElementTree as ET

nupkg, snupkg = sys.argv[1], sys.argv[2]
problems = []
frameworks = ["net8.0", "net10.0"]

with zipfile.ZipFile(nupkg) as package:
    names = set(package.namelist())
    required = ["README.md", "License.md", "KeyValueStore.nuspec"]
    for tfm in frameworks:
        required += [f"lib/{tfm}/KeyValueStore.dll", f"lib/{tfm}/KeyValueStore.xml"]
    for name in required:
        if name not in names:
            problems.append(f"{name} is missing from the package")
    print("verify-package: package files:")
    for name in sorted(names):
        if not name.startswith(("_rels/", "package/", "[Content_Types]")):
            print(f"  {name} ({package.getinfo(name).file_size} bytes)")
    nuspec = package.read("KeyValueStore.nuspec") if "KeyValueStore.nuspec" in names else b"<package/>"

root = ET.fromstring(nuspec)
def local(tag):
    return tag.rsplit("}", 1)[-1]
metadata = next((e for e in root if local(e.tag) == "metadata"), None)
fields = {local(e.tag): e for e in (metadata if metadata is not None else [])}
for field, expected in [("readme", "README.md"), ("license", "Apache-2.0")]:
    actual = fields[field].text if field in fields else None
    if actual != expected:
        problems.append(f"nuspec <{field}> is {actual!r}, expected {expected!r}")
for field in ["projectUrl", "repository"]:
    if field not in fields:
        problems.append(f"nuspec has no <{field}> (RepositoryUrl/PackageProjectUrl in build/Library.props)")
repository = fields.get("repository")
if repository is not None:
    print(f"verify-package: repository {repository.get('url')} commit {repository.get('commit')}")
    if not repository.get("commit"):
        problems.append("nuspec <repository> has no commit: SourceLink did not find the git repository")

# Other dependencies are allowed: central transitive pinning turns a pinned transitive package into a
# dependency of ours (Microsoft.NET.StringTools, pinned for MessagePack in Directory.Packages.props).
needed = {"Microsoft.FASTER.Core", "MessagePack", "K4os.Compression.LZ4", "Microsoft.Extensions.Logging.Abstractions"}
# Build-time packages that must stay private to the build (PrivateAssets="all").
forbidden = re.compile(r"^(Microsoft\.CodeAnalysis\..*|"
                       r"Microsoft\.SourceLink\..*|Microsoft\.Build\.Tasks\.Git)$", re.IGNORECASE)
groups = {}
dependencies = next((e for e in metadata if local(e.tag) == "dependencies"), None) if metadata is not None else None
for group in (dependencies if dependencies is not None else []):
    groups[group.get("targetFramework")] = {d.get("id"): d.get("version") for d in group}
for tfm in frameworks:
    deps = groups.get(tfm)
    if deps is None:
        problems.append(f"nuspec has no dependency group for {tfm}")
        continue
    print(f"verify-package: {tfm} dependencies: " + ", ".join(f"{i} {v}" for i, v in sorted(deps.items())))
    for missing in sorted(needed - deps.keys()):
        problems.append(f"{tfm}: dependency {missing} is missing")
    for extra in sorted(d for d in deps if forbidden.match(d)):
        problems.append(f"{tfm}: build-time package {extra} leaked into the dependencies (needs PrivateAssets=\"all\")")

# A portable PDB keeps the SourceLink JSON as plain UTF-8 text in its blob heap.
with zipfile.ZipFile(snupkg) as symbols:
    for tfm in frameworks:
        pdb = f"lib/{tfm}/KeyValueStore.pdb"
        if pdb not in symbols.namelist():
            problems.append(f"{pdb} is missing from the symbol package")
            continue
        match = re.search(rb'\{"documents":\{[^}]*\}\}', symbols.read(pdb))
        if not match:
            problems.append(f"{pdb} has no SourceLink map")
        else:
            print(f"verify-package: {tfm} SourceLink: {match.group(0).decode()}")

if problems:
    for p in problems:
        print(f"verify-package: FAILED: {p}", file=sys.stderr)
    sys.exit(1)
print("verify-package: package contents ok")
PY

# The add-ons: each packed at the same version must carry its assembly for both frameworks and depend on exactly this
# version of the core package. The hosting add-on depends on the hosting abstractions only (never a host
# implementation); the Redis store on StackExchange.Redis, never on Garnet (the server its tests run).
addons=(KeyValueStore.Extensions.DependencyInjection KeyValueStore.Redis)
for addon in "${addons[@]}"; do
echo "verify-package: packing $addon $version into $feed"
dotnet pack "src/$addon/$addon.csproj" -c Release -o "$feed" -p:PackageVersion="$version" \
    -nologo -tl:off -v:q -clp:NoSummary \
    || fail "dotnet pack of $addon failed"
python3 - "$feed/$addon.$version.nupkg" "$addon" "$version" <<'PY'
import sys, zipfile
import xml.etree.ElementTree as ET

path, addon, version = sys.argv[1:4]
forbidden = {"KeyValueStore.Extensions.DependencyInjection": ["Microsoft.Extensions.Hosting"],
             "KeyValueStore.Redis": ["Microsoft.Garnet"]}[addon]
required = {"KeyValueStore.Extensions.DependencyInjection": [],
            "KeyValueStore.Redis": ["StackExchange.Redis"]}[addon]
problems = []
with zipfile.ZipFile(path) as package:
    names = set(package.namelist())
    for tfm in ["net8.0", "net10.0"]:
        for name in [f"lib/{tfm}/{addon}.dll", f"lib/{tfm}/{addon}.xml"]:
            if name not in names:
                problems.append(f"{name} is missing from {addon}")
    nuspec = ET.fromstring(package.read(f"{addon}.nuspec"))
for group in nuspec.iter():
    if group.tag.rsplit("}", 1)[-1] != "group":
        continue
    deps = {d.get("id"): d.get("version") for d in group}
    tfm = group.get("targetFramework")
    print(f"verify-package: {addon} {tfm} dependencies: " + ", ".join(f"{i} {v}" for i, v in sorted(deps.items())))
    if deps.get("KeyValueStore") != version:
        problems.append(f"{tfm}: depends on KeyValueStore {deps.get('KeyValueStore')!r}, expected {version}")
    for package_id in forbidden:
        if package_id in deps:
            problems.append(f"{tfm}: depends on {package_id}, which it must not")
    for package_id in required:
        if package_id not in deps:
            problems.append(f"{tfm}: lacks its dependency on {package_id}")
if problems:
    for p in problems:
        print(f"verify-package: FAILED: {p}", file=sys.stderr)
    sys.exit(1)
print(f"verify-package: {addon} package contents ok")
PY
done

# The consumer is built in a copy outside the repository: its own NuGet.config can name the temporary feed,
# and no Directory.Build.props, Directory.Packages.props or global.json of the repository applies (the
# stubs in the project folder stop that even when it is built in place).
consumer="$work/consumer"
mkdir -p "$consumer"
cp "$repo"/test/KeyValueStore.PackageConsumer/*.cs "$repo"/test/KeyValueStore.PackageConsumer/*.csproj \
    "$repo"/test/KeyValueStore.PackageConsumer/Directory.* "$consumer"/
cat > "$consumer/NuGet.config" <<EOF
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <!-- No <clear/>: the sources configured on this machine stay, for the package's dependencies. -->
    <add key="keyvaluestore-verify" value="$feed" />
  </packageSources>
</configuration>
EOF

echo "verify-package: building the package consumer against KeyValueStore $version"
dotnet build "$consumer/KeyValueStore.PackageConsumer.csproj" -c Release -p:KeyValueStoreVersion="$version" \
    -nologo -tl:off -v:q -clp:NoSummary \
    || fail "the package consumer did not build against the package"

metadata="$global_packages/keyvaluestore/$version/.nupkg.metadata"
grep -qF "\"source\": \"$feed\"" "$metadata" 2>/dev/null \
    || fail "KeyValueStore $version was not restored from $feed (see $metadata)"
for addon in "${addons[@]}"; do
    addon_metadata="$global_packages/${addon,,}/$version/.nupkg.metadata"
    grep -qF "\"source\": \"$feed\"" "$addon_metadata" 2>/dev/null \
        || fail "$addon $version was not restored from $feed (see $addon_metadata)"
done

for tfm in net8.0 net10.0; do
    echo "verify-package: running the package consumer ($tfm)"
    dotnet "$consumer/bin/Release/$tfm/KeyValueStore.PackageConsumer.dll" \
        || fail "the package consumer failed on $tfm"
done
echo "verify-package: OK: KeyValueStore $version packs, restores from its folder and runs on net8.0 and net10.0"
