using System.Collections.Concurrent;
using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace KeyValueStore.Benchmarks.Compaction;

/// <summary>
/// A column with the disk bytes per live byte at the end of the last iteration of each case:
/// what the compactor leaves on disk, next to the time it cost.
/// </summary>
public sealed class DiskPerLiveByteColumn : IColumn
{
    private static readonly ConcurrentDictionary<string, double> Ratios = new();

    public string Id => nameof(DiskPerLiveByteColumn);

    public string ColumnName => "Disk/Live";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Bytes of files in the log directory per byte of live data, after the last iteration";

    public static void Record(CompactionMode mode, double ratio) => Ratios[mode.ToString()] = ratio;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) =>
        Ratios.TryGetValue(benchmarkCase.Parameters["Compaction"]?.ToString() ?? "", out double ratio) ? ratio.ToString("0.00", CultureInfo.InvariantCulture) : "-";

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
}
