using System.Collections.Generic;

namespace KeyValueStore.CrashHarness;

/// <summary>What one kill-and-recover cycle saw.</summary>
/// <param name="Cycle">The cycle's number, from 1.</param>
/// <param name="KilledBeforeReady">Whether the kill landed while the worker was still opening (recovering) the store.</param>
/// <param name="Acknowledged">How many writes the worker reported acknowledged before it died.</param>
/// <param name="CompletedCheckpoints">How many on-demand checkpoints it saw complete (Checkpoint mode).</param>
/// <param name="Violations">Every key whose recovered state no allowed history explains; empty when the cycle passed.</param>
internal sealed record CycleReport(int Cycle, bool KilledBeforeReady, int Acknowledged, int CompletedCheckpoints, IReadOnlyList<string> Violations);
