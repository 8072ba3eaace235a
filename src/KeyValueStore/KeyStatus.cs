namespace KeyValueStore;

/// <summary>Whether an operation found a live record for its key. Expected outcomes are values, never exceptions.</summary>
public enum KeyStatus
{
    /// <summary>No live record exists for the key: it was never written, or it was deleted.</summary>
    NotFound = 0,

    /// <summary>A live record exists for the key (for a delete: existed, and is now deleted).</summary>
    Found = 1,
}
