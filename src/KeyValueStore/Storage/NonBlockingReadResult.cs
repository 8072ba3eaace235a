namespace KeyValueStore.Storage;

/// <summary>What <see cref="NonBlockingFileRead.TryReadAtLeast"/> did.</summary>
internal enum NonBlockingReadResult
{
    /// <summary>Every byte was read from the page cache.</summary>
    Read,

    /// <summary>Not all of it is cached (or the read failed): read it the usual way.</summary>
    NotCached,

    /// <summary>This kernel, file system or C library does not offer the call: do not try again.</summary>
    Unsupported,
}
