using System;
using System.Collections.Generic;
using ScottPlot;

namespace KeyValueStore.Charts;

/// <summary>How each store is drawn and compared: ours (the <c>typed</c> stores) in orange, every peer in a cool colour.</summary>
internal static class StoreStyle
{
    private static readonly Dictionary<string, Color> Known = new(StringComparer.OrdinalIgnoreCase)
    {
        ["typed"] = Color.FromHex("#E8590C"),
        ["typed-checkpoint"] = Color.FromHex("#F59F00"),
        ["typed-commit"] = Color.FromHex("#D9480F"),
        ["raw-faster"] = Color.FromHex("#495057"),
        ["faster"] = Color.FromHex("#868E96"),
        ["memory"] = Color.FromHex("#ADB5BD"),
        ["sqlite"] = Color.FromHex("#1971C2"),
        ["sqlite-full"] = Color.FromHex("#74C0FC"),
        ["litedb"] = Color.FromHex("#2F9E44"),
        ["rocksdb"] = Color.FromHex("#6741D9"),
        ["rocksdb-sync"] = Color.FromHex("#B197FC"),
        ["zonetree"] = Color.FromHex("#0C8599"),
    };

    // Ours first, then the engine and the memory ceiling, then the peers.
    private static readonly string[] Order =
        ["typed", "typed-checkpoint", "typed-commit", "raw-faster", "faster", "memory", "sqlite", "sqlite-full", "litedb", "rocksdb", "rocksdb-sync", "zonetree"];

    /// <summary>Where a store goes in a chart and a table: ours first; a store this list does not know, last.</summary>
    public static int Rank(string store)
    {
        int index = Array.FindIndex(Order, name => string.Equals(name, store, StringComparison.OrdinalIgnoreCase));
        return index >= 0 ? index : Order.Length;
    }

    /// <summary>Whether the store is one of ours.</summary>
    public static bool IsOurs(string store) => store.StartsWith("typed", StringComparison.OrdinalIgnoreCase);

    public static Color ColorOf(string store) => Known.TryGetValue(store, out Color color) ? color : Color.FromHex("#5C7CFA");

    /// <summary>The store a group's ratios are taken against: <c>typed</c> if it ran, else <c>typed-commit</c> (durable workloads).</summary>
    public static string? Reference(IReadOnlyCollection<string> stores)
    {
        foreach (string candidate in new[] { "typed", "typed-commit", "typed-checkpoint" })
        {
            foreach (string store in stores)
            {
                if (string.Equals(store, candidate, StringComparison.OrdinalIgnoreCase))
                {
                    return store;
                }
            }
        }

        return null;
    }
}
