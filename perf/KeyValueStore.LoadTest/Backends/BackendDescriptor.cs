using System;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>A backend as --backend names it.</summary>
/// <param name="Name">The value of --backend.</param>
/// <param name="Description">One line for the usage and the report.</param>
/// <param name="UsesMemorySize">Whether --memory-size applies (and is checked against --value-size).</param>
/// <param name="StoresOnDisk">Whether the loaded data must fit on disk (else in memory); checked before a run.</param>
/// <param name="Open">Opens the backend in the run's directory.</param>
/// <param name="KeepsWriteAheadLog">Whether the backend is this store in Commit mode, whose write-ahead log --wal-dir places.</param>
/// <param name="NeedsEndpoint">Whether the backend measures a server already running, whose address --endpoint gives (and must).</param>
internal sealed record BackendDescriptor(string Name, string Description, bool UsesMemorySize, bool StoresOnDisk, Func<BackendContext, ILoadTestBackend> Open, bool KeepsWriteAheadLog = false, bool NeedsEndpoint = false);
