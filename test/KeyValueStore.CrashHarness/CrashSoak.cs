using System;
using System.IO;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// Runs a soak's kill-and-recover cycles, printing progress every 25, and stops at the first cycle that finds a
/// violation, keeping the files that cycle's recovery started from.
/// </summary>
/// <remarks>
/// Why stop: a violation usually leaves a store that every later recovery refuses the same way (a missing segment, a
/// damaged checkpoint), so later cycles only repeat it, and each kept a copy of the store's files: a soak that found one
/// at its 83rd cycle filled 69 GB of disk with over a hundred copies of the same evidence before it was stopped. The first
/// violating cycle is the one to replay (<c>--seed</c>).
/// </remarks>
internal sealed class CrashSoak(Func<int, Task<CycleReport>> runCycle, CycleEvidence evidence, TextWriter output, TextWriter errors)
{
    /// <summary>Runs up to <paramref name="cycles"/> cycles; returns the violations of the cycle it stopped at, or 0 when every cycle passed.</summary>
    /// <param name="cycles">How many cycles to run when none finds a violation.</param>
    /// <param name="label">The mode and kind of crash, at the head of each progress line.</param>
    /// <param name="powerCuts">Whether the progress lines count the writes in flight at the cuts.</param>
    public async Task<int> RunAsync(int cycles, string label, bool powerCuts)
    {
        int beforeReady = 0, lost = 0, torn = 0, whole = 0;
        long acknowledged = 0;
        var started = DateTime.UtcNow;
        for (int cycle = 1; cycle <= cycles; cycle++)
        {
            evidence.TakeBeforeCycle();
            CycleReport report = await runCycle(cycle);
            beforeReady += report.KilledBeforeReady ? 1 : 0;
            acknowledged += report.Acknowledged;
            lost += report.InFlightAtCut.Lost;
            torn += report.InFlightAtCut.Torn;
            whole += report.InFlightAtCut.Whole;
            int violations = report.Violations.Count;
            if (violations > 0 || cycle % 25 == 0 || cycle == cycles)
            {
                output.WriteLine($"{label}: {cycle}/{cycles} cycles, {beforeReady} died during recovery, {acknowledged} acknowledged writes, {violations} violations{(powerCuts ? $", writes in flight at the cuts: {lost} lost, {torn} torn, {whole} whole" : "")}, {(DateTime.UtcNow - started).TotalSeconds:F0} s");
            }

            if (violations > 0)
            {
                foreach (string violation in report.Violations)
                {
                    errors.WriteLine(violation);
                }

                errors.WriteLine($"cycle {cycle}: stopped at the first violation; the files its worker recovered are kept in {evidence.KeepFor(cycle)}");
                evidence.Delete();
                return violations;
            }
        }

        return 0;
    }
}
