using System.Collections.Generic;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>Everything a run measured: printed as text, and written as JSON by --json (same names, camelCase).</summary>
internal sealed record LoadTestReport(
    SettingsReport Settings,
    MachineReport Machine,
    PhaseReport Load,
    RunReport Run,
    IReadOnlyList<OperationReport> Operations,
    long BytesOnDisk,
    MemoryReport Memory,
    VerificationReport Verification);
