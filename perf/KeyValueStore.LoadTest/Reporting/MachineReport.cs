namespace KeyValueStore.LoadTest.Reporting;

internal sealed record MachineReport(int ProcessorCount, string OperatingSystem, string Runtime);
