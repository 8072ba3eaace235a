using System;
using System.IO;
using System.Threading.Tasks;
using KeyValueStore.Benchmarks.Compaction;

namespace KeyValueStore.Benchmarks.Tests;

/// <summary>The copy-rate command measures a copy or fails saying why: CI's run of it copied nothing and passed.</summary>
public class CopyRateTests
{
    [Fact]
    public async Task ARunWhoseLogHasNoReadOnlyPage_Fails_AndSaysToUseMoreKeys()
    {
        (int exitCode, string output, string errors) = await RunAsync("--upserts", "20000", "--keys", "5000");

        Assert.Equal(1, exitCode);
        Assert.Contains("Nothing was copied", errors, StringComparison.Ordinal);
        Assert.Contains("Use more keys", errors, StringComparison.Ordinal);
        Assert.DoesNotContain("Writers held / beside the writers", output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARunWithMoreLiveDataThanMemory_CopiesSomething_BothWays()
    {
        (int exitCode, string output, string errors) = await RunAsync("--upserts", "30000", "--keys", "20000");

        Assert.True(exitCode == 0, output + errors);
        Assert.Matches(@"\| beside the writers \| [1-9][\d.]* \| [1-9][\d.]* \|", output);
        Assert.Matches(@"\| writers held \(FASTER's compaction\) \| [1-9][\d.]* \| [1-9][\d.]* \|", output);
    }

    private static async Task<(int ExitCode, string Output, string Errors)> RunAsync(params string[] args)
    {
        TextWriter standardOutput = Console.Out;
        TextWriter standardError = Console.Error;
        using var output = new StringWriter();
        using var errors = new StringWriter();
        Console.SetOut(output);
        Console.SetError(errors);
        try
        {
            int exitCode = await CopyRate.RunAsync(args);
            return (exitCode, output.ToString(), errors.ToString());
        }
        finally
        {
            Console.SetOut(standardOutput);
            Console.SetError(standardError);
        }
    }
}
