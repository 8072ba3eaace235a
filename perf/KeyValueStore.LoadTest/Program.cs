using System;
using System.Threading;
using KeyValueStore.LoadTest;

// dotnet run -c Release --project perf/KeyValueStore.LoadTest -- [options]; --help lists them.
using var cancel = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    // The first Ctrl+C ends the current phase and still prints the report; a second one kills the process.
    if (!cancel.IsCancellationRequested)
    {
        e.Cancel = true;
        cancel.Cancel();
    }
};

return await LoadTestApp.RunAsync(args, Console.Out, Console.Error, !Console.IsErrorRedirected, cancel.Token).ConfigureAwait(false);
