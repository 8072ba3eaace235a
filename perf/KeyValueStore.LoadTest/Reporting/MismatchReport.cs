namespace KeyValueStore.LoadTest.Reporting;

internal sealed record MismatchReport(string Phase, string Operation, long KeyId, long ExpectedLowestVersion, long ExpectedHighestVersion, string Observed);
