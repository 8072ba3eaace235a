using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Reporting;
using KeyValueStore.LoadTest.Running;

namespace KeyValueStore.LoadTest;

/// <summary>
/// The command: parse, check --dir and --json, open the backend in a fresh directory, check that it
/// can write batches if --batch-size asks for them, run, report, clean up, and turn the outcome into an
/// exit code (<see cref="ExitCodes"/>).
/// </summary>
internal static class LoadTestApp
{
    /// <param name="args">The command line.</param>
    /// <param name="output">Where the report goes (stdout).</param>
    /// <param name="errors">Where progress and errors go (stderr).</param>
    /// <param name="errorsIsTerminal">Whether <paramref name="errors"/> is a terminal, so the progress line can rewrite itself.</param>
    /// <param name="cancel">Ctrl+C: ends the current phase early; the report still comes.</param>
    /// <param name="openBackend">Opens the backend instead of the catalog's; tests wrap a real backend with it.</param>
    public static async Task<int> RunAsync(
        IReadOnlyList<string> args,
        TextWriter output,
        TextWriter errors,
        bool errorsIsTerminal,
        CancellationToken cancel,
        Func<BackendContext, ILoadTestBackend>? openBackend = null)
    {
        LoadTestOptions options;
        RunDirectory directory;
        RunDirectory? walDirectory = null;
        try
        {
            options = OptionParser.Parse(args);
            if (options.ShowHelp)
            {
                output.Write(Usage.Text);
                return ExitCodes.Ok;
            }

            if (options.JsonPath is not null)
            {
                CheckWritable(options.JsonPath);
            }

            directory = RunDirectory.Create(options.Directory);
            try
            {
                CapacityCheck.Ensure(options, directory.Path);
                walDirectory = options.WriteAheadLogDirectory is null ? null : RunDirectory.Create(options.WriteAheadLogDirectory, "--wal-dir");
            }
            catch
            {
                directory.Dispose();
                throw;
            }
        }
        catch (InvalidOptionException e)
        {
            return BadInput(errors, e.Message);
        }

        LoadTestReport report;
        using (directory)
        using (walDirectory)
        {
            try
            {
                var context = new BackendContext(directory.Path, options.Records, options.ValueSize, options.MemorySizeBytes, options.Compaction, options.DiskBudgetBytes, walDirectory?.Path, options.Endpoint, options.MutableFraction, options.CompactionRatio, options.SegmentSizeBytes);
                await using ILoadTestBackend backend = (openBackend ?? options.Backend.Open)(context);

                // Checked on the backend as opened, since a capability is what the instance implements.
                if (options.BatchSize > 1 && backend is not IBatchWriter)
                {
                    return BadInput(errors,
                        $"--batch-size {options.BatchSize} needs a backend that writes atomic batches, and the {options.Backend.Name} backend does not; use --batch-size 1 with it.");
                }

                var runner = new LoadTestRunner(options, errors, errorsIsTerminal, TimeProvider.System);
                report = await runner.RunAsync(backend, directory.Path, cancel).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                errors.WriteLine();
                errors.WriteLine($"error: the {options.Backend.Name} backend failed: {e}");
                return ExitCodes.RunFailed;
            }
        }

        TextReport.Write(report, output);
        if (options.JsonPath is not null)
        {
            try
            {
                JsonReport.Write(report, options.JsonPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                errors.WriteLine($"error: writing --json '{options.JsonPath}' failed: {e.Message}");
                return ExitCodes.RunFailed;
            }
        }

        if (report.Verification.Mismatches > 0)
        {
            return ExitCodes.VerifyMismatches;
        }

        if (options.MaxAllocatedBytesPerOperation is long limit && report.Run.AllocatedBytesPerOperation is double allocated && allocated > limit)
        {
            // Invariant, as the report's figures are: the message quotes the same number the report's allocated line gives.
            errors.WriteLine(string.Create(
                CultureInfo.InvariantCulture,
                $"error: the run allocated {allocated:N0} B per operation, over --max-allocated-per-op {limit:N0}. Something on the {options.Backend.Name} backend's path allocates more than it did; find it with the allocation figures in docs/benchmarks.md, or raise the limit where the change is meant to cost that."));
            return ExitCodes.AllocationOverLimit;
        }

        return ExitCodes.Ok;
    }

    /// <summary>Bad input: the message, then the usage, on stderr; nothing ran.</summary>
    private static int BadInput(TextWriter errors, string message)
    {
        errors.WriteLine($"error: {message}");
        errors.WriteLine();
        errors.Write(Usage.Text);
        return ExitCodes.BadInput;
    }

    /// <summary>Creates (or truncates) the --json file now, so a bad path fails before a run, not after it.</summary>
    private static void CheckWritable(string path)
    {
        try
        {
            using (File.Create(path))
            {
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
        {
            throw new InvalidOptionException($"--json '{path}' cannot be written: {e.Message}", e);
        }
    }
}
