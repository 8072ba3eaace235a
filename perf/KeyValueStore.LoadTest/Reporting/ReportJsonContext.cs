using System.Text.Json.Serialization;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>System.Text.Json's generated serializer for the report: camelCase names, indented.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, WriteIndented = true)]
[JsonSerializable(typeof(LoadTestReport))]
internal sealed partial class ReportJsonContext : JsonSerializerContext
{
}
