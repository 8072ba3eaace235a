using System.Collections.Generic;

namespace KeyValueStore.CrashHarness;

/// <summary>What one kill-and-recover cycle saw.</summary>
/// <param name="Cycle">The cycle's number, from 1.</param>
/// <param name="KilledBeforeReady">Whether the crash landed before the worker had recovered the store and reported it (observed, not scheduled).</param>
/// <param name="Acknowledged">How many writes the worker reported acknowledged before it died.</param>
/// <param name="CompletedCheckpoints">How many on-demand checkpoints it saw complete (Checkpoint mode).</param>
/// <param name="InFlightAtCut">With power cuts: the writes in flight at the cut that were lost, torn and written whole.</param>
/// <param name="Violations">Every key whose recovered state no allowed history explains; empty when the cycle passed.</param>
internal sealed record CycleReport(int Cycle, bool KilledBeforeReady, int Acknowledged, int CompletedCheckpoints, (int Lost, int Torn, int Whole) InFlightAtCut, IReadOnlyList<string> Violations);
