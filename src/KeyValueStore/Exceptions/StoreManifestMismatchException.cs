namespace KeyValueStore;

/// <summary>
/// Thrown when a store is opened on a directory whose manifest records different settings or types than the store was
/// given, or a format this version does not know. Nothing is changed on disk.
/// </summary>
public sealed class StoreManifestMismatchException : KeyValueStoreException
{
    internal StoreManifestMismatchException(string manifestPath, string setting, string storedValue, string requestedValue)
        : this(
            manifestPath,
            setting,
            storedValue,
            requestedValue,
            $"The store in '{manifestPath}' was created with {setting} = {storedValue}, but this store was opened with {requestedValue}. "
            + $"Open it with {setting} = {storedValue}, or use another {nameof(MixedStorageKVStoreOptions.LogDirectory)} or {nameof(MixedStorageKVStoreOptions.LogFileNamePrefix)} for a new store. The files were left untouched.")
    {
    }

    /// <summary>For a setting that may change between opens, but not as this open asked: <paramref name="message"/> says why, and what to do.</summary>
    internal StoreManifestMismatchException(string manifestPath, string setting, string storedValue, string requestedValue, string message)
        : base(message)
    {
        ManifestPath = manifestPath;
        Setting = setting;
        StoredValue = storedValue;
        RequestedValue = requestedValue;
    }

    /// <summary>Gets the manifest that records the store's settings.</summary>
    public string ManifestPath { get; }

    /// <summary>Gets the name of the setting that differs.</summary>
    public string Setting { get; }

    /// <summary>Gets the value the manifest records.</summary>
    public string StoredValue { get; }

    /// <summary>Gets the value this store was opened with.</summary>
    public string RequestedValue { get; }
}
