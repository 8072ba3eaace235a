using System;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>The names operation types have in the report and the JSON.</summary>
internal static class OperationNames
{
    public static string Of(OperationType type) => type switch
    {
        OperationType.Read => "read",
        OperationType.Update => "update",
        OperationType.Insert => "insert",
        OperationType.ReadModifyWrite => "read-modify-write",
        OperationType.Batch => "batch",
        _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Unknown operation type."),
    };
}
