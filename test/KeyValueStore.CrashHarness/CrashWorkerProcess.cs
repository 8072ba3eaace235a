using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// A <see cref="CrashWorker"/> running in a child process: its report lines as they arrive, and SIGKILL.
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

    /// <summary>Starts a worker writing to the store in <paramref name="directory"/>.</summary>
    public static CrashWorkerProcess Start(string directory, DurabilityMode mode, int seed, long versionBase)
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
        return new CrashWorkerProcess(new Process { StartInfo = start });
    }

    /// <summary>Completes once the worker has opened its store (and so holds its lock); throws if it exited first.</summary>
    public async Task WaitUntilReadyAsync()
    {
        Task first = await Task.WhenAny(_ready.Task, _process.WaitForExitAsync()).ConfigureAwait(false);
        if (first != _ready.Task)
        {
            throw new InvalidOperationException($"The crash worker exited with {_process.ExitCode} before it was ready: {await _errors.ConfigureAwait(false)}");
        }
    }

    /// <summary>Kills the worker with SIGKILL (no finalizers, no flush, no dispose) and returns every line it reported.</summary>
    public async Task<List<string>> KillAsync()
    {
        _process.Kill(entireProcessTree: true);
        await _process.WaitForExitAsync().ConfigureAwait(false);
        lock (_lines)
        {
            return [.. _lines];
        }
    }

    public void Dispose() => _process.Dispose();

    private void Receive(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_lines)
        {
            if (line == "READY")
            {
                _ready.TrySetResult();
            }
            else
            {
                _lines.Add(line);
            }
        }
    }
}
