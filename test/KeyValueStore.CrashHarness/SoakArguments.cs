using System;
using System.Linq;

namespace KeyValueStore.CrashHarness;

/// <summary>The soak's command line: which arguments it knows, so that a mistyped one (or <c>--help</c>) is refused instead of ignored.</summary>
/// <remarks>An ignored argument once started a default soak, a thousand cycles, when only the usage was asked for.</remarks>
internal static class SoakArguments
{
    private static readonly string[] s_withValue = ["--cycles", "--mode", "--seed", "--dir"];
    private static readonly string[] s_flags = ["--power-cut", "--lying-disk", "--failing-disk", "--wal-elsewhere"];

    /// <summary>The first argument after <c>soak</c> that the soak does not know (an option missing its value included), or null when all are known.</summary>
    public static string? FirstUnknown(string[] args)
    {
        for (int i = 1; i < args.Length; i++)
        {
            if (s_withValue.Contains(args[i], StringComparer.Ordinal))
            {
                if (i + 1 >= args.Length)
                {
                    return $"{args[i]} (without its value)";
                }

                i++;
            }
            else if (!s_flags.Contains(args[i], StringComparer.Ordinal))
            {
                return args[i];
            }
        }

        return null;
    }
}
