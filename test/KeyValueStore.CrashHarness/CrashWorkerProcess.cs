using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// A <see cref="CrashWorker"/> running in a child process: its report lines as they arrive, how it ended, and SIGKILL.
/// </summary>
internal sealed class CrashWorkerProcess : IDisposable
{
    private readonly Process _process;
    private readonly List<string> _lines = [];
    private readonly TaskCompletionSource _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Task<string> _errors;

    private CrashWorkerProcess(Process process)
    {
        _process = process;
        _process.OutputDataReceived += (_, e) => Receive(e.Data);
        _process.Start();
        _process.BeginOutputReadLine();
        _errors = _process.StandardError.ReadToEndAsync();
    }

    /// <summary>Gets whether the worker reported its recovered state in full (<c>READY</c>) before it died.</summary>
    public bool Ready => _ready.Task.IsCompleted;

    /// <summary>Gets the exit code when the worker exited on its own (a failure, or a finished check), null when it was killed or cut its power.</summary>
    public int? ExitedOnItsOwn { get; private set; }

    /// <summary>
    /// Gets, after a hang, where the worker stood: the last lines it reported and, when <c>dotnet-stack</c> is
    /// installed, its threads' stacks taken before it was killed. Empty otherwise.
    /// </summary>
    public string HangReport { get; private set; } = string.Empty;

    /// <summary>
    /// Gets, after a hang, every line the worker reported before it was killed: the writes it acknowledged still bind
    /// the next recovery. Null otherwise.
    /// </summary>
    public List<string>? LinesBeforeTheHang { get; private set; }

    /// <summary>Gets what the worker wrote to standard error, once it has ended.</summary>
    public Task<string> Errors => _errors;

    /// <summary>Starts a worker on the store in <paramref name="directory"/>; see <see cref="CrashWorker.RunAsync"/> for the arguments.</summary>
    public static CrashWorkerProcess Start(string directory, DurabilityMode mode, int seed, long versionBase, string checkKeysFile, string[] extraArguments)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            // Never written: the worker reads it only to notice, at end of file, that this process is gone.
            RedirectStandardInput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(typeof(CrashWorkerProcess).Assembly.Location);
        start.ArgumentList.Add("worker");
        start.ArgumentList.Add(directory);
        start.ArgumentList.Add(mode.ToString());
        start.ArgumentList.Add(seed.ToString(CultureInfo.InvariantCulture));
        start.ArgumentList.Add(versionBase.ToString(CultureInfo.InvariantCulture));
        start.ArgumentList.Add(checkKeysFile);
        foreach (string argument in extraArguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new CrashWorkerProcess(new Process { StartInfo = start });
    }

    /// <summary>Completes once the worker has recovered the store and reported it, or has died.</summary>
    public Task WaitUntilReadyOrGoneAsync() => Task.WhenAny(_ready.Task, _process.WaitForExitAsync());

    /// <summary>
    /// Takes the stacks of a worker found hung (<see cref="HangReport"/>), then kills it. For a worker that never reported
    /// it was ready: <see cref="WaitForExitAsync"/> does the same for one that was to end itself.
    /// </summary>
    public async Task KillAsHungAsync()
    {
        if (!_process.HasExited)
        {
            string stacks = await HangDiagnostics.StacksOfAsync(_process.Id).ConfigureAwait(false);
            List<string> reported;
            lock (_lines)
            {
                reported = [.. _lines];
            }

            HangReport = DescribeHang(reported, stacks);
        }

        await KillAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// Kills the worker with SIGKILL (no finalizers, no flush, no dispose) unless it already exited, and returns every
    /// line it reported.
    /// </summary>
    public async Task<List<string>> KillAsync()
    {
        if (_process.HasExited)
        {
            ExitedOnItsOwn = _process.ExitCode;
        }
        else
        {
            _process.Kill(entireProcessTree: true);
        }

        return await LinesAfterExitAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// Waits for a worker that ends itself (a power cut, a check) and returns every line it reported; kills it and
    /// returns null when it has run <paramref name="timeout"/> without reporting a line, or five times that in all (a
    /// worker that should have cut its power but whose writers go on), a hang.
    /// </summary>
    /// <remarks>
    /// Judged by progress, not by the total time: a final check reports 100,000 keys, and in CI, beside the other test
    /// classes, one was killed as hung after 2 minutes at 89,088 lines while its stacks showed it writing the next line
    /// to a full pipe: slow, not stuck.
    /// </remarks>
    public async Task<List<string>?> WaitForExitAsync(TimeSpan timeout)
    {
        Task exited = _process.WaitForExitAsync();
        DateTime giveUpAt = DateTime.UtcNow + (timeout * 5);
        int reported = LineCount;
        while (await Task.WhenAny(exited, Task.Delay(timeout)).ConfigureAwait(false) != exited)
        {
            int now = LineCount;
            if (now > reported && DateTime.UtcNow < giveUpAt)
            {
                reported = now;
                continue;
            }

            string stacks = await HangDiagnostics.StacksOfAsync(_process.Id).ConfigureAwait(false);
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync().ConfigureAwait(false);
            List<string> lines = await LinesAfterExitAsync().ConfigureAwait(false);
            LinesBeforeTheHang = lines;
            HangReport = DescribeHang(lines, stacks);
            return null;
        }

        await exited.ConfigureAwait(false);

        // A process that cut its power killed itself: SIGKILL, exit code 137 (128 + 9).
        ExitedOnItsOwn = _process.ExitCode == 137 ? null : _process.ExitCode;
        return await LinesAfterExitAsync().ConfigureAwait(false);
    }

    private async Task<List<string>> LinesAfterExitAsync()
    {
        // WaitForExitAsync also waits for the end of the redirected output, so every line has arrived.
        await _process.WaitForExitAsync().ConfigureAwait(false);
        lock (_lines)
        {
            return [.. _lines];
        }
    }

    public void Dispose() => _process.Dispose();

    private static string DescribeHang(List<string> lines, string stacks) =>
        $"{lines.Count} lines reported, the last: {string.Join(" | ", lines.TakeLast(3))}{Environment.NewLine}{stacks}";

    private int LineCount
    {
        get
        {
            lock (_lines)
            {
                return _lines.Count;
            }
        }
    }

    private void Receive(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_lines)
        {
            _lines.Add(line);
            if (line == "READY")
            {
                _ready.TrySetResult();
            }
        }
    }
}
