using System;
using System.Collections.Generic;

namespace KeyValueStore;

/// <summary>
/// Thrown when <see cref="MixedStorageKVStoreOptions"/> hold values the store cannot run with.
/// Every problem found is listed, so one fix-and-retry cycle is enough.
/// </summary>
/// <remarks>Thrown before anything is created on disk.</remarks>
public sealed class InvalidStoreOptionsException : KeyValueStoreException
{
    /// <summary>Creates the exception for a store of any kind (a store over a server checks its own options).</summary>
    /// <param name="problems">One sentence per invalid option: the option, its value, and what to change.</param>
    public InvalidStoreOptionsException(IReadOnlyList<string> problems)
        : base(FormatMessage(problems))
    {
        Problems = problems;
    }

    /// <summary>Gets one sentence per invalid option: the option, its value, and what to change.</summary>
    public IReadOnlyList<string> Problems { get; }

    private static string FormatMessage(IReadOnlyList<string> problems) =>
        $"The store options are invalid ({problems.Count} problem{(problems.Count == 1 ? "" : "s")}):"
        + Environment.NewLine + "- " + string.Join(Environment.NewLine + "- ", problems);
}
