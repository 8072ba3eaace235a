namespace KeyValueStore.LoadTest.Backends;

/// <summary>The <c>PRAGMA synchronous</c> levels the SQLite backends run with; the values are SQLite's own.</summary>
internal enum SqliteSynchronous
{
    /// <summary>In WAL mode, the WAL is synced only at checkpoints: a commit is not durable on return (<c>sqlite</c>).</summary>
    Normal = 1,

    /// <summary>In WAL mode, the WAL is synced at every commit: a commit is durable on return (<c>sqlite-full</c>).</summary>
    Full = 2,
}
