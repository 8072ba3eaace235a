using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using ScottPlot;
using ScottPlot.TickGenerators;

namespace KeyValueStore.Charts;

/// <summary>
/// One bar chart per workload: operations per second of every store, grouped by case (method and parameters), on a
/// logarithmic axis (the stores differ by orders of magnitude); ours in orange and marked with a star in the legend.
/// </summary>
internal static class ChartWriter
{
    private const double BarWidth = 0.8;

    public static void Write(string workload, IReadOnlyList<BenchmarkRow> rows, string pngPath)
    {
        List<string> groups = rows.Select(row => row.Group).Distinct().ToList();
        List<string> stores = rows.Select(row => row.Store).Distinct().OrderBy(StoreStyle.Rank).ThenBy(store => store, StringComparer.Ordinal).ToList();
        double lowest = Math.Floor(Math.Log10(rows.Min(row => row.OperationsPerSecond)));
        double highest = Math.Ceiling(Math.Log10(rows.Max(row => row.OperationsPerSecond)));

        var plot = new Plot();
        var bars = new List<Bar>();
        var groupCentres = new List<double>();
        double x = 0;
        foreach (string group in groups)
        {
            double start = x;
            foreach (string store in stores)
            {
                BenchmarkRow? row = rows.FirstOrDefault(r => r.Group == group && r.Store == store);
                if (row is not null)
                {
                    bars.Add(new Bar
                    {
                        Position = x,
                        Value = Math.Log10(row.OperationsPerSecond),
                        ValueBase = lowest,
                        FillColor = StoreStyle.ColorOf(store),
                        LineWidth = StoreStyle.IsOurs(store) ? 2 : 0,
                        LineColor = Colors.Black,
                        Size = BarWidth,
                    });
                }

                x += 1;
            }

            groupCentres.Add((start + x - 1) / 2);
            x += 1.5; // a gap between groups
        }

        plot.Add.Bars(bars);

        plot.Axes.Bottom.TickGenerator = new NumericManual(groupCentres.ToArray(), groups.Select(Wrap).ToArray());
        plot.Axes.Bottom.TickLabelStyle.FontSize = 13;
        double[] decades = Enumerable.Range((int)lowest, (int)(highest - lowest) + 1).Select(d => (double)d).ToArray();
        plot.Axes.Left.TickGenerator = new NumericManual(decades, decades.Select(d => Format(Math.Pow(10, d))).ToArray());
        plot.Axes.SetLimits(-1, x - 0.5, lowest, highest);
        plot.Axes.Margins(bottom: 0);

        plot.Title($"{workload}: operations per second (log scale, higher is better)");
        plot.YLabel("operations / s");
        foreach (string store in stores)
        {
            plot.Legend.ManualItems.Add(new LegendItem
            {
                LabelText = StoreStyle.IsOurs(store) ? $"{store} (ours)" : store,
                FillColor = StoreStyle.ColorOf(store),
            });
        }

        plot.Legend.Alignment = Alignment.UpperRight;
        plot.ShowLegend(Edge.Right);
        int width = Math.Max(1000, 120 + (int)(x * 28));
        plot.SavePng(pngPath, width, 600);
    }

    /// <summary>A case label over lines: method on the first, one parameter per line after it.</summary>
    private static string Wrap(string group) => group.Replace(' ', '\n');

    private static string Format(double value) => value switch
    {
        >= 1e9 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e9:0.#}G"),
        >= 1e6 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e6:0.#}M"),
        >= 1e3 => string.Create(CultureInfo.InvariantCulture, $"{value / 1e3:0.#}K"),
        _ => value.ToString("0.#", CultureInfo.InvariantCulture),
    };
}
