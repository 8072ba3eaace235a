using System;
using System.Globalization;

namespace KeyValueStore.LoadTest.Options;

/// <summary>Sizes on the command line: plain bytes or a k, m, g or t suffix in powers of 1024.</summary>
internal static class ByteSize
{
    /// <summary>Parses "256", "4k", "64m", "1G"; returns false for anything else, including overflow.</summary>
    public static bool TryParse(string text, out long bytes)
    {
        bytes = 0;
        if (string.IsNullOrEmpty(text))
        {
            return false;
        }

        int shift = char.ToLowerInvariant(text[^1]) switch
        {
            'k' => 10,
            'm' => 20,
            'g' => 30,
            't' => 40,
            _ => 0,
        };
        string digits = shift == 0 ? text : text[..^1];
        if (!long.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out long number))
        {
            return false;
        }

        if (number > (long.MaxValue >> shift))
        {
            return false;
        }

        bytes = number << shift;
        return true;
    }

    /// <summary>The shortest exact form: 65536 → "64k", 1073741824 → "1g", 1000 → "1000".</summary>
    public static string Format(long bytes)
    {
        foreach ((int shift, string suffix) in new[] { (40, "t"), (30, "g"), (20, "m"), (10, "k") })
        {
            long unit = 1L << shift;
            if (bytes >= unit && bytes % unit == 0)
            {
                return string.Create(CultureInfo.InvariantCulture, $"{bytes / unit}{suffix}");
            }
        }

        return bytes.ToString(CultureInfo.InvariantCulture);
    }

    /// <summary>A size for people: "64.0 MiB".</summary>
    public static string Human(long bytes)
    {
        string[] units = ["B", "KiB", "MiB", "GiB", "TiB"];
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0
            ? string.Create(CultureInfo.InvariantCulture, $"{bytes} B")
            : string.Create(CultureInfo.InvariantCulture, $"{value:0.0} {units[unit]}");
    }
}
