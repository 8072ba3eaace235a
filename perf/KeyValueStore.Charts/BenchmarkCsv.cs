using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

namespace KeyValueStore.Charts;

/// <summary>
/// Reads BenchmarkDotNet's CSV reports (<c>*-report.csv</c>): the Type, Method, Store, Mean, Error and Allocated
/// columns, and the parameter columns, which BenchmarkDotNet puts between the job's columns (ending with WarmupCount)
/// and Mean. Cells carry units ("1,234.5 ns", "12 B"); a parameter that does not apply to a case reads "?".
/// </summary>
internal static class BenchmarkCsv
{
    public static IReadOnlyList<BenchmarkRow> Read(string path)
    {
        string[] lines = File.ReadAllLines(path);
        if (lines.Length < 2)
        {
            return [];
        }

        List<string> header = Split(lines[0]);
        int type = Required(header, "Type", path);
        int method = Required(header, "Method", path);
        int mean = Required(header, "Mean", path);
        int error = header.IndexOf("Error");
        int allocated = Required(header, "Allocated", path);
        int store = header.IndexOf("Store");
        int firstParameter = header.IndexOf("WarmupCount") + 1;
        if (store < 0 || firstParameter <= 0)
        {
            return [];
        }

        var rows = new List<BenchmarkRow>();
        foreach (string line in lines.Skip(1).Where(line => line.Length > 0))
        {
            List<string> cells = Split(line);
            if (!TryTime(cells[mean], out double meanNs))
            {
                continue; // A case that failed has no mean.
            }

            var parameters = new List<string>();
            for (int column = firstParameter; column < mean; column++)
            {
                if (column != store && cells[column] != "?")
                {
                    parameters.Add($"{header[column]}={cells[column]}");
                }
            }

            rows.Add(new BenchmarkRow(
                cells[type],
                cells[method],
                cells[store],
                parameters,
                meanNs,
                error >= 0 && TryTime(cells[error], out double errorNs) ? errorNs : null,
                Bytes(cells[allocated])));
        }

        return rows;
    }

    private static int Required(List<string> header, string name, string path)
    {
        int index = header.IndexOf(name);
        return index >= 0 ? index : throw new InvalidDataException($"{path} has no '{name}' column; is it a BenchmarkDotNet CSV report?");
    }

    /// <summary>A time cell in nanoseconds: a number, then ns, us, μs, ms or s.</summary>
    private static bool TryTime(string cell, out double nanoseconds)
    {
        nanoseconds = 0;
        string[] parts = cell.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length != 2 || !double.TryParse(parts[0], NumberStyles.Float | NumberStyles.AllowThousands, CultureInfo.InvariantCulture, out double value))
        {
            return false;
        }

        double scale = parts[1] switch
        {
            "ns" => 1,
            "us" or "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            _ => double.NaN,
        };
        nanoseconds = value * scale;
        return !double.IsNaN(nanoseconds);
    }

    /// <summary>An allocation cell in bytes: "-" (nothing), or a number then B, KB, MB or GB (binary multiples).</summary>
    private static double Bytes(string cell)
    {
        string[] parts = cell.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length != 2 || !double.TryParse(parts[0], NumberStyles.Float | NumberStyles.AllowThousands, CultureInfo.InvariantCulture, out double value))
        {
            return 0;
        }

        return value * parts[1] switch
        {
            "KB" => 1024,
            "MB" => 1024 * 1024,
            "GB" => 1024 * 1024 * 1024,
            _ => 1,
        };
    }

    /// <summary>One CSV line's cells: comma-separated, a quoted cell may hold commas and doubled quotes.</summary>
    private static List<string> Split(string line)
    {
        var cells = new List<string>();
        var cell = new StringBuilder();
        bool quoted = false;
        for (int i = 0; i < line.Length; i++)
        {
            char c = line[i];
            if (quoted)
            {
                if (c == '"' && i + 1 < line.Length && line[i + 1] == '"')
                {
                    cell.Append('"');
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
                else
                {
                    cell.Append(c);
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                cells.Add(cell.ToString());
                cell.Clear();
            }
            else
            {
                cell.Append(c);
            }
        }

        cells.Add(cell.ToString());
        return cells;
    }
}
