using System;
using System.Diagnostics;
using System.IO;
using System.Threading.Tasks;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// Takes the managed stacks of a process that hung, with <c>dotnet-stack</c> when it is installed (on the PATH or as a
/// global tool), so that a hang seen once in CI says where it stood. Without the tool it says so and nothing else.
/// </summary>
internal static class HangDiagnostics
{
    private static readonly TimeSpan ToolTimeout = TimeSpan.FromSeconds(30);

    public static async Task<string> StacksOfAsync(int processId)
    {
        string? tool = FindTool();
        if (tool is null)
        {
            return "(no stacks: dotnet-stack is not installed)";
        }

        try
        {
            var start = new ProcessStartInfo(tool, ["report", "-p", processId.ToString(System.Globalization.CultureInfo.InvariantCulture)])
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            using Process report = Process.Start(start)!;
            Task<string> output = report.StandardOutput.ReadToEndAsync();
            Task<string> errors = report.StandardError.ReadToEndAsync();
            try
            {
                await report.WaitForExitAsync().WaitAsync(ToolTimeout).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                report.Kill(entireProcessTree: true);
                return "(no stacks: dotnet-stack did not answer in time)";
            }

            return (await output.ConfigureAwait(false)) + (await errors.ConfigureAwait(false));
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception or IOException)
        {
            return $"(no stacks: dotnet-stack failed: {e.Message})";
        }
    }

    private static string? FindTool()
    {
        string globalTool = Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".dotnet", "tools", "dotnet-stack");
        if (File.Exists(globalTool))
        {
            return globalTool;
        }

        foreach (string directory in (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries))
        {
            string candidate = Path.Combine(directory, "dotnet-stack");
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        return null;
    }
}
