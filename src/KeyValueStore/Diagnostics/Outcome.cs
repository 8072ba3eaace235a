namespace KeyValueStore.Diagnostics;

/// <summary>The values of the <c>kvstore.outcome</c> tag (<see cref="StoreMetrics"/>).</summary>
internal static class Outcome
{
    public const string Ok = "ok";
    public const string NotFound = "not_found";
    public const string Error = "error";
}
