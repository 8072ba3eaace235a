namespace KeyValueStore.LoadTest.Reporting;

/// <summary>What ran the test: the cores, the system, the runtime and its garbage collector's mode.</summary>
/// <param name="ProcessorCount">The cores the process could use.</param>
/// <param name="OperatingSystem">The operating system, as the runtime describes it.</param>
/// <param name="Runtime">The .NET runtime.</param>
/// <param name="ServerGarbageCollector">
/// Whether the process ran the server garbage collector (<c>DOTNET_gcServer=1</c>, the default of ASP.NET Core
/// services) rather than the workstation one, a console application's default: with many workers on few cores the two
/// give the stores different throughput (docs/benchmarks.md), so a report says which it had.
/// </param>
internal sealed record MachineReport(int ProcessorCount, string OperatingSystem, string Runtime, bool ServerGarbageCollector);
