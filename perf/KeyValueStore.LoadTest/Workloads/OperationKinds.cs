namespace KeyValueStore.LoadTest.Workloads;

/// <summary>Which operation types --batch-size groups into batches.</summary>
internal static class OperationKinds
{
    /// <summary>
    /// Whether <paramref name="type"/> writes without reading first (an update, an insert): what a batch can hold.
    /// A read-modify-write reads its key before it writes, so it stays a single operation, as a read does.
    /// </summary>
    public static bool IsBlindWrite(OperationType type) => type is OperationType.Update or OperationType.Insert;
}
