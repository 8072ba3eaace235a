using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace KeyValueStore.Tests.Architecture;

/// <summary>
/// Keeps the library's dependencies pointing one way (docs/architecture.md): the facade, then serialization, the engine,
/// compaction, durability, storage, and at the bottom concurrency and diagnostics. A folder may use the types of the
/// folders below it, the public API types at the root and the exceptions; never those of a folder above it or beside it.
/// </summary>
/// <remarks>
/// Read from the source: every type a folder declares (aliases too), then every use of another folder's type name in
/// code, with comments and enum members left out. Type names are unique across the library, which the test checks first.
/// </remarks>
public partial class LayeringTests
{
    /// <summary>Each layer, top first, with the layers it may use.</summary>
    private static readonly string[] s_layers = ["Facade", "Serialization", "Engine", "Compaction", "Durability", "Storage", "Concurrency", "Diagnostics"];

    /// <summary>Layers usable from any other: the public API's plain types and the exceptions.</summary>
    private static readonly string[] s_everywhere = ["PublicApi", "Exceptions"];

    [Fact]
    public void EveryFolder_UsesOnlyTheLayersBelowIt()
    {
        Dictionary<string, string> layerOfType = DeclaredTypes();
        var violations = new List<string>();
        foreach ((string file, string layer) in SourceFiles())
        {
            string code = EnumBodies().Replace(WithoutComments(File.ReadAllText(file)), " ");
            foreach (string used in Identifiers().Matches(code).Select(match => match.Value).Distinct())
            {
                if (layerOfType.TryGetValue(used, out string? usedLayer) && usedLayer != layer && !MayUse(layer, usedLayer))
                {
                    violations.Add($"{Path.GetRelativePath(SourceRoot, file)} ({layer}) uses {used} ({usedLayer})");
                }
            }
        }

        Assert.True(violations.Count == 0, "dependencies against the layering:\n" + string.Join("\n", violations));
    }

    [Fact]
    public void TheLayering_IsEnforced_ForAUseAgainstIt()
    {
        // The rule itself: the engine may use durability, never the reverse, and nothing uses the facade.
        Assert.True(MayUse("Engine", "Durability"));
        Assert.False(MayUse("Durability", "Engine"));
        Assert.False(MayUse("Compaction", "Engine"));
        Assert.False(MayUse("Engine", "Facade"));
        Assert.True(MayUse("Storage", "PublicApi"));
        Assert.Contains("FasterRecordStore", DeclaredTypes().Where(pair => pair.Value == "Engine").Select(pair => pair.Key));
        Assert.Contains("StoreSession", DeclaredTypes().Where(pair => pair.Value == "Engine").Select(pair => pair.Key));
    }

    private static bool MayUse(string layer, string usedLayer) =>
        s_everywhere.Contains(usedLayer)
        || (Array.IndexOf(s_layers, usedLayer) > Array.IndexOf(s_layers, layer) && Array.IndexOf(s_layers, layer) >= 0);

    private static string SourceRoot { get; } = FindSourceRoot();

    private static string FindSourceRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "KeyValueStore.sln")))
            {
                return Path.Combine(directory.FullName, "src", "KeyValueStore");
            }
        }

        throw new InvalidOperationException($"No KeyValueStore.sln above {AppContext.BaseDirectory}");
    }

    /// <summary>The library's source files and their layers: a folder is a layer; at the root, the facade or the public API.</summary>
    private static IEnumerable<(string File, string Layer)> SourceFiles() =>
        Directory.EnumerateFiles(SourceRoot, "*.cs", SearchOption.AllDirectories)
            .Where(file => !file.Contains($"{Path.DirectorySeparatorChar}obj{Path.DirectorySeparatorChar}", StringComparison.Ordinal)
                && !file.Contains($"{Path.DirectorySeparatorChar}bin{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Select(file => (file, LayerOf(file)));

    private static string LayerOf(string file)
    {
        string relative = Path.GetRelativePath(SourceRoot, file);
        int separator = relative.IndexOf(Path.DirectorySeparatorChar, StringComparison.Ordinal);
        if (separator > 0)
        {
            return relative[..separator];
        }

        return Path.GetFileNameWithoutExtension(relative).StartsWith("MixedStorageKVStore.", StringComparison.Ordinal)
            || Path.GetFileNameWithoutExtension(relative) == "MixedStorageKVStore"
            ? "Facade"
            : "PublicApi";
    }

    private static Dictionary<string, string> DeclaredTypes()
    {
        var layers = new Dictionary<string, string>(StringComparer.Ordinal);
        var duplicates = new List<string>();
        foreach ((string file, string layer) in SourceFiles())
        {
            string code = WithoutComments(File.ReadAllText(file));
            foreach (Match match in Declarations().Matches(code))
            {
                string name = match.Groups["name"].Value;
                if (layers.TryGetValue(name, out string? other) && other != layer)
                {
                    duplicates.Add($"{name} ({other}, {layer})");
                }

                layers[name] = layer;
            }
        }

        // MixedStorageKVStoreOptions and the other public types share the facade's prefix, not its layer.
        layers["MixedStorageKVStore"] = "Facade";
        Assert.True(duplicates.Count == 0, "type names declared in two layers: " + string.Join(", ", duplicates));
        return layers;
    }

    private static string WithoutComments(string code) => Comments().Replace(code, " ");

    [GeneratedRegex(@"//[^\n]*|/\*.*?\*/", RegexOptions.Singleline)]
    private static partial Regex Comments();

    /// <summary>An enum's members may share a type's name (DeviceRole.WriteAheadLog) without using it.</summary>
    [GeneratedRegex(@"\benum\s+\w+[^{]*\{[^}]*\}")]
    private static partial Regex EnumBodies();

    [GeneratedRegex(@"\b(?:class|struct|interface|enum|record|record\s+struct)\s+(?<name>[A-Z]\w*)|\bglobal\s+using\s+(?<name>[A-Z]\w*)\s*=")]
    private static partial Regex Declarations();

    [GeneratedRegex(@"\b[A-Z]\w*\b")]
    private static partial Regex Identifiers();
}
