using System.IO;
using System.Text.Json;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>--json: the report for scripts.</summary>
internal static class JsonReport
{
    public static void Write(LoadTestReport report, string path)
    {
        using FileStream file = File.Create(path);
        JsonSerializer.Serialize(file, report, ReportJsonContext.Default.LoadTestReport);
    }
}
