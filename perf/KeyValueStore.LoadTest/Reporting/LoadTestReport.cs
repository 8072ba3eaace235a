using System.Collections.Generic;
using System.Text.Json.Serialization;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>Everything a run measured: printed as text, and written as JSON by --json (same names, camelCase).</summary>
/// <remarks>
/// <see cref="DurableFlushes"/> is null, and absent from the JSON, for backends that do not count flushes;
/// <see cref="Batches"/> likewise unless --batch-size is above 1; <see cref="Compaction"/> for backends that do not report it;
/// <see cref="LatencyBesideBackgroundWork"/> for backends that do not mark their compaction passes and checkpoints;
/// <see cref="Pacing"/> unless --rate is given.
/// </remarks>
internal sealed record LoadTestReport(
    SettingsReport Settings,
    MachineReport Machine,
    PhaseReport Load,
    RunReport Run,
    IReadOnlyList<OperationReport> Operations,
    long BytesOnDisk,
    MemoryReport Memory,
    VerificationReport Verification,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] DurableFlushReport? DurableFlushes,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] BatchReport? Batches,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] CompactionReport? Compaction = null,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] IReadOnlyList<BesideWorkLatencyReport>? LatencyBesideBackgroundWork = null,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] PacingReport? Pacing = null);
