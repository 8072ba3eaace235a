using System;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>A backend as --backend names it.</summary>
/// <param name="Name">The value of --backend.</param>
/// <param name="Description">One line for the usage and the report.</param>
/// <param name="UsesMemorySize">Whether --memory-size applies (and is checked against --value-size).</param>
/// <param name="Open">Opens the backend in the run's directory.</param>
internal sealed record BackendDescriptor(string Name, string Description, bool UsesMemorySize, Func<BackendContext, ILoadTestBackend> Open);
