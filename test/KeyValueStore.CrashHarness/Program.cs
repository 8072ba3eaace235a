using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore;
using KeyValueStore.CrashHarness;

// worker <dir> <mode> <seed> <versionBase>   the child the checker kills
// soak [--cycles N] [--mode Commit|Checkpoint] [--dir D] [--seed S]   many cycles; exit code 1 on any violation; a random seed unless given
if (args.Length == 5 && args[0] == "worker")
{
    return await CrashWorker.RunAsync(args[1], Enum.Parse<DurabilityMode>(args[2]), int.Parse(args[3], CultureInfo.InvariantCulture), long.Parse(args[4], CultureInfo.InvariantCulture));
}

if (args.Length >= 1 && args[0] == "soak")
{
    int cycles = int.Parse(Option("--cycles", "1000"), CultureInfo.InvariantCulture);
    var mode = Enum.Parse<DurabilityMode>(Option("--mode", "Commit"));
    // A fresh seed per run unless one is given, printed first, so that every run explores new schedules and any run can be replayed.
    int seed = int.Parse(Option("--seed", Random.Shared.Next().ToString(CultureInfo.InvariantCulture)), CultureInfo.InvariantCulture);
    Console.WriteLine($"{mode}: seed {seed} (replay with --seed {seed})");
    string directory = Option("--dir", Path.Combine(Path.GetTempPath(), "kvstore-crash-soak", Guid.NewGuid().ToString("N")));
    var checker = new CrashChecker(directory, mode, seed);
    int violations = 0, beforeReady = 0;
    long acknowledged = 0;
    var started = DateTime.UtcNow;
    for (int cycle = 1; cycle <= cycles; cycle++)
    {
        CycleReport report = await checker.RunCycleAsync(cycle);
        violations += report.Violations.Count;
        beforeReady += report.KilledBeforeReady ? 1 : 0;
        acknowledged += report.Acknowledged;
        foreach (string violation in report.Violations)
        {
            Console.Error.WriteLine(violation);
        }

        if (cycle % 25 == 0 || cycle == cycles)
        {
            Console.WriteLine($"{mode}: {cycle}/{cycles} cycles, {beforeReady} killed during recovery, {acknowledged} acknowledged writes checked, {violations} violations, {(DateTime.UtcNow - started).TotalSeconds:F0} s");
        }
    }

    Directory.Delete(directory, recursive: true);
    return violations == 0 ? 0 : 1;
}

Console.Error.WriteLine("usage: KeyValueStore.CrashHarness soak [--cycles N] [--mode Commit|Checkpoint] [--dir D] [--seed S]");
return 2;

string Option(string name, string fallback)
{
    int index = Array.IndexOf(args, name);
    return index >= 0 && index + 1 < args.Length ? args[index + 1] : fallback;
}
