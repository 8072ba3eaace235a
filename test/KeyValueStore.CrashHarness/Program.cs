using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore;
using KeyValueStore.CrashHarness;

// worker <dir> <mode> <seed> <versionBase> <checkKeysFile> [--cut open|ready <ms> [--lying-disk]] [--fail-disk open|ready <ms>] [--check-only] [--wal-elsewhere]   the child (see CrashWorker)
// soak [--cycles N] [--mode Commit|Checkpoint] [--power-cut [--lying-disk] | --failing-disk] [--wal-elsewhere] [--dir D] [--seed S]   many cycles, then every key checked;
//   stops at the first cycle with a violation, exit code 1; a fresh random seed unless given, printed first; an unknown argument prints the usage (exit 2)
if (args.Length >= 6 && args[0] == "worker")
{
    int cutAt = Array.IndexOf(args, "--cut");
    (bool AfterReady, int Milliseconds)? cut = cutAt < 0 ? null : (args[cutAt + 1] == "ready", int.Parse(args[cutAt + 2], CultureInfo.InvariantCulture));
    int failAt = Array.IndexOf(args, "--fail-disk");
    (bool AfterReady, int Milliseconds)? diskFailure = failAt < 0 ? null : (args[failAt + 1] == "ready", int.Parse(args[failAt + 2], CultureInfo.InvariantCulture));
    return await CrashWorker.RunAsync(
        args[1], Enum.Parse<DurabilityMode>(args[2]), int.Parse(args[3], CultureInfo.InvariantCulture), long.Parse(args[4], CultureInfo.InvariantCulture),
        args[5], cut, checkOnly: args.Contains("--check-only"), lyingDisk: args.Contains("--lying-disk"), writeAheadLogElsewhere: args.Contains("--wal-elsewhere"), diskFailure: diskFailure);
}

if (args.Length >= 1 && args[0] == "soak" && SoakArguments.FirstUnknown(args) is null)
{
    int cycles = int.Parse(Option("--cycles", "1000"), CultureInfo.InvariantCulture);
    var mode = Enum.Parse<DurabilityMode>(Option("--mode", "Commit"));
    // A fresh seed per run unless one is given, printed first, so that every run explores new schedules and any run can be replayed.
    int seed = int.Parse(Option("--seed", Random.Shared.Next().ToString(CultureInfo.InvariantCulture)), CultureInfo.InvariantCulture);
    bool powerCuts = args.Contains("--power-cut");
    bool failingDisk = args.Contains("--failing-disk");
    string crash = powerCuts ? "power cut" : failingDisk ? "failing disk" : "SIGKILL";
    Console.WriteLine($"{mode}, {crash}: seed {seed} (replay with --seed {seed})");
    string directory = Option("--dir", Path.Combine(Path.GetTempPath(), "kvstore-crash-soak", Guid.NewGuid().ToString("N")));
    var checker = new CrashChecker(directory, mode, seed, powerCuts, lyingDisk: args.Contains("--lying-disk"), writeAheadLogElsewhere: args.Contains("--wal-elsewhere"), failingDisk: failingDisk);
    var evidence = new CycleEvidence(directory);
    int violations = await new CrashSoak(checker.RunCycleAsync, evidence, Console.Out, Console.Error).RunAsync(cycles, $"{mode}, {crash}", powerCuts);
    if (violations > 0)
    {
        // The store is left as the violation made it, for the replay; no final check of a store that may not open.
        return 1;
    }

    IReadOnlyList<string> final = await checker.CheckEveryKeyAsync();
    violations = final.Count;
    foreach (string violation in final)
    {
        Console.Error.WriteLine(violation);
    }

    Console.WriteLine($"{mode}, {crash}: every key checked after the last cycle, {final.Count} violations; total {violations}");

    evidence.Delete();
    Directory.Delete(directory, recursive: true);
    return violations == 0 ? 0 : 1;
}

if (args.Length >= 1 && args[0] == "soak")
{
    Console.Error.WriteLine($"unknown soak argument: {SoakArguments.FirstUnknown(args)}");
}

Console.Error.WriteLine("usage: KeyValueStore.CrashHarness soak [--cycles N] [--mode Commit|Checkpoint] [--power-cut [--lying-disk] | --failing-disk] [--wal-elsewhere] [--dir D] [--seed S]");
return 2;

string Option(string name, string fallback)
{
    int index = Array.IndexOf(args, name);
    return index >= 0 && index + 1 < args.Length ? args[index + 1] : fallback;
}
