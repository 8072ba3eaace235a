namespace KeyValueStore.Storage;

/// <summary>One segment file of the log: its path, its segment number, and its size on disk.</summary>
internal readonly record struct LogSegmentFile(string Path, long Number, long Length);
