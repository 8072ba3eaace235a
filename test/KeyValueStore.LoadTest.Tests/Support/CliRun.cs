using System;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>The load test run in-process, as the command line runs it, with its output captured.</summary>
internal sealed record CliRun(int ExitCode, string Output, string Errors)
{
    public static async Task<CliRun> RunAsync(string[] args, Func<BackendContext, ILoadTestBackend>? openBackend = null)
    {
        var output = new StringWriter();
        var errors = new StringWriter();
        int exitCode = await LoadTestApp.RunAsync(args, output, errors, errorsIsTerminal: false, CancellationToken.None, openBackend);
        return new CliRun(exitCode, output.ToString(), errors.ToString());
    }

    /// <summary>A short run in <paramref name="directory"/>: 4 workers, 1 second, 2,000 records, unless <paramref name="args"/> says otherwise.</summary>
    public static Task<CliRun> SmallAsync(string directory, string[] args, Func<BackendContext, ILoadTestBackend>? openBackend = null)
    {
        string[] defaults = ["--threads", "4", "--seconds", "1", "--records", "2000", "--dir", directory];
        string[] merged = defaults.Chunk(2).Where(pair => !args.Contains(pair[0])).SelectMany(pair => pair).Concat(args).ToArray();
        return RunAsync(merged, openBackend);
    }
}
