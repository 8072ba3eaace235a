namespace KeyValueStore.Diagnostics;

/// <summary>The values of the <c>kvstore.operation</c> tag (<see cref="StoreMetrics"/>).</summary>
internal static class Operation
{
    public const string Upsert = "upsert";
    public const string Read = "read";
    public const string Delete = "delete";
    public const string Batch = "batch";
    public const string ReadMany = "read_many";
    public const string UpdateMany = "update_many";
}
