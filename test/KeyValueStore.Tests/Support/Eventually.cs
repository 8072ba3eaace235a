using System;
using System.Threading.Tasks;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// Waits for something a background task does (FASTER's truncation, a timer's step) to become true.
/// A guard against hanging, not a timing claim: it allows two minutes, far beyond what any of these needs.
/// </summary>
internal static class Eventually
{
    public static async Task TrueAsync(Func<bool> condition, Func<string> describeFailure)
    {
        for (int attempt = 0; attempt < 12_000 && !condition(); attempt++)
        {
            await Task.Delay(10);
        }

        Assert.True(condition(), describeFailure());
    }
}
