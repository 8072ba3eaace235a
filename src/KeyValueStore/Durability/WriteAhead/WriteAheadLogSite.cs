using System;
using System.IO;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// Where a durable store's write-ahead log is: in the store's directory (<c>&lt;prefix&gt;.wal</c>), or in
/// <see cref="StoreSettings.WriteAheadLogDirectory"/> as <c>&lt;prefix&gt;.&lt;store id&gt;.wal</c>. The manifest records
/// which (<see cref="StoreManifest.WriteAheadLogElsewhere"/>), not the directory, so that a store and its log can be moved
/// apart; the id keeps stores that share a directory apart.
/// </summary>
/// <remarks>
/// The manifest is what tells a log that holds acknowledged writes from a leftover: a log is looked for only where the
/// manifest says it is, and an open that would start a log somewhere else while one is there is refused. So the manifest
/// says "elsewhere" only while a log is there: it is rewritten after a new log elsewhere is created (a crash before that
/// leaves an empty log nothing refers to, which the next move deletes), and before a retired one's files are deleted (a
/// crash before that leaves a log whose writes the store's checkpoint already holds).
/// </remarks>
internal sealed class WriteAheadLogSite
{
    private const string Option = nameof(MixedStorageKVStoreOptions) + "." + nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory);

    private readonly string _manifestPath;
    private readonly DirectoryDurability _directories;
    private StoreManifest _manifest;
    private bool _recorded;

    private WriteAheadLogSite(string directory, bool elsewhere, bool startsNew, StoreManifest manifest, string manifestPath, DirectoryDurability directories)
    {
        Directory = directory;
        Elsewhere = elsewhere;
        StartsNew = startsNew;
        _manifest = manifest;
        _manifestPath = manifestPath;
        _directories = directories;
    }

    /// <summary>Gets the log's directory.</summary>
    public string Directory { get; }

    /// <summary>Gets whether the log is outside the store's directory.</summary>
    public bool Elsewhere { get; }

    /// <summary>
    /// Gets whether a new log is to be started elsewhere: the manifest names no log there, so whatever log the store's
    /// checkpoint holds must be in the store's directory.
    /// </summary>
    public bool StartsNew { get; }

    /// <summary>Gets whether the log's directory exists, that is, whether the store has a log there to open.</summary>
    public bool Exists => System.IO.Directory.Exists(Directory);

    /// <summary>
    /// Finds the store's log from its <paramref name="manifest"/> and the directory it was opened with; for a Commit-mode
    /// store opened with a directory of its own, the log is to be started there (<see cref="RecordOpened"/>).
    /// </summary>
    /// <exception cref="StoreManifestMismatchException">
    /// The log is elsewhere and not where the store was opened to find it, or the store's directory holds a log that
    /// this open would leave behind.
    /// </exception>
    public static WriteAheadLogSite Find(StoreSettings settings, LogFileLayout layout, StoreManifest manifest)
    {
        string? requested = settings.WriteAheadLogDirectory;
        if (manifest.WriteAheadLogElsewhere)
        {
            string? directory = requested is null ? null : layout.WriteAheadLogDirectoryIn(requested, manifest.StoreId!);
            if (directory is null || !System.IO.Directory.Exists(directory))
            {
                string name = $"{layout.Prefix}.{manifest.StoreId}.wal";
                throw new StoreManifestMismatchException(
                    layout.ManifestPath,
                    nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory),
                    $"a directory holding '{name}'",
                    requested ?? "null",
                    $"The store in '{layout.ManifestPath}' keeps its write-ahead log outside its directory, as '{name}', and the log may hold acknowledged writes, "
                    + (requested is null ? $"but {Option} is not set. " : $"but '{requested}' has no '{name}'. ")
                    + $"Set {Option} to the directory that holds '{name}'. The files were left untouched.");
            }

            return new WriteAheadLogSite(directory, elsewhere: true, startsNew: false, manifest, layout.ManifestPath, settings.Directories);
        }

        if (requested is null || settings.Durability != DurabilityMode.Commit)
        {
            // Only Commit mode starts a log; another mode finds the one a Commit-mode store left in its directory, if any.
            return new WriteAheadLogSite(layout.WriteAheadLogDirectory, elsewhere: false, startsNew: false, manifest, layout.ManifestPath, settings.Directories);
        }

        if (System.IO.Directory.Exists(layout.WriteAheadLogDirectory))
        {
            throw new StoreManifestMismatchException(
                layout.ManifestPath,
                nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory),
                "null (the store's directory)",
                requested,
                $"The store in '{layout.ManifestPath}' has a write-ahead log in its own directory ('{layout.WriteAheadLogDirectory}'), which may hold acknowledged writes, "
                + $"but {Option} is '{requested}'. Open it with {Option} = null; to move the log, open and close the store once in "
                + $"{nameof(DurabilityMode.Checkpoint)} mode (which applies the log and retires it), then reopen it in {nameof(DurabilityMode.Commit)} mode "
                + $"with {Option} = '{requested}'. The files were left untouched.");
        }

        StoreManifest moved = manifest.WithWriteAheadLogElsewhere(true);
        return new WriteAheadLogSite(layout.WriteAheadLogDirectoryIn(requested, moved.StoreId!), elsewhere: true, startsNew: true, moved, layout.ManifestPath, settings.Directories);
    }

    /// <summary>
    /// Readies the site for the log to be opened: for a log to be started elsewhere, checks that its directory can be
    /// written and deletes what a log there left. Nothing refers to one: a crash left it before the manifest recorded it,
    /// or after its log was retired. Called once every read-only check of the store's files has passed.
    /// </summary>
    public void PrepareToOpen(LogFileLayout layout)
    {
        if (StartsNew)
        {
            layout.EnsureWritable(Path.GetDirectoryName(Directory)!, nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory));
            try
            {
                WriteAheadLog.DeleteFiles(Directory);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new LogDirectoryUnavailableException(Directory, e, nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory));
            }
        }
    }

    /// <summary>Records in the manifest that the store's log is elsewhere, once a new log there has been opened; before any write goes to it.</summary>
    public void RecordOpened()
    {
        if (StartsNew && !_recorded)
        {
            string parent = Path.GetDirectoryName(Directory)!;
            try
            {
                _directories.Flush(parent);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // The log's directory, not the store's, is what to fix (the store opener names the store's for an IOException).
                throw new LogDirectoryUnavailableException(parent, e, nameof(MixedStorageKVStoreOptions.WriteAheadLogDirectory));
            }

            _manifest.WriteAtomically(_manifestPath, _directories);
            _recorded = true;
        }
    }

    /// <summary>Records in the manifest that the store has no log elsewhere any more: after the checkpoint that holds its writes, before its files are deleted.</summary>
    public void RecordRetired()
    {
        if (Elsewhere)
        {
            _manifest = _manifest.WithWriteAheadLogElsewhere(false);
            _manifest.WriteAtomically(_manifestPath, _directories);
        }
    }
}
