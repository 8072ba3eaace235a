using System;

namespace KeyValueStore.LoadTest.Workloads;

/// <summary>
/// A small, fast pseudo-random generator (Steele, Lea and Flood's SplitMix64). Each worker owns one,
/// seeded from --seed and its index, so a run's operation sequence per worker is reproducible and
/// does not depend on the .NET version's <see cref="Random"/> algorithm. Not thread-safe.
/// </summary>
internal struct SplitMix64
{
    private const ulong GoldenGamma = 0x9E3779B97F4A7C15;
    private ulong _state;

    public SplitMix64(ulong seed)
    {
        _state = seed;
    }

    /// <summary>A generator for one worker: the seed and the index are mixed so neighbouring workers' streams are unrelated.</summary>
    public static SplitMix64 ForWorker(long seed, int worker)
    {
        var mixer = new SplitMix64(unchecked((ulong)seed));
        ulong workerSeed = mixer.NextUInt64() ^ Mix(unchecked((ulong)worker + 1));
        return new SplitMix64(workerSeed);
    }

    public ulong NextUInt64()
    {
        _state = unchecked(_state + GoldenGamma);
        return Mix(_state);
    }

    /// <summary>A double in [0, 1) with 53 random bits.</summary>
    public double NextDouble() => (NextUInt64() >> 11) * (1.0 / (1UL << 53));

    /// <summary>A value in [0, <paramref name="bound"/>) by multiply-shift; no value is more likely than another by more than bound / 2^64.</summary>
    public long NextBelow(long bound) => (long)(((UInt128)NextUInt64() * (ulong)bound) >> 64);

    /// <summary>The SplitMix64 output function: a bijective mix of 64 bits.</summary>
    public static ulong Mix(ulong z)
    {
        z = unchecked((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9);
        z = unchecked((z ^ (z >> 27)) * 0x94D049BB133111EB);
        return z ^ (z >> 31);
    }
}
