using System.Collections.Generic;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>--verify's outcome: reads checked during the run and in the final sweep, mismatches, and the first few.</summary>
internal sealed record VerificationReport(bool Enabled, long ReadsChecked, long SweepReads, long Mismatches, IReadOnlyList<MismatchReport> Examples);
