using System;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// The parts a write crosses before it reaches FASTER, each alone, uncontended and single-threaded: where the engine's
/// time over raw FASTER goes (<see cref="HotPathBenchmarks"/>). Each method is one pass in and out.
/// </summary>
/// <remarks>
/// Run as <see cref="HotPathBenchmarks"/> is, with a job that picks its own invocation count:
/// <c>dotnet run -c Release --project perf/KeyValueStore.Benchmarks -- --filter '*WritePathParts*' --job Short --inProcess</c>
/// </remarks>
public class WritePathPartsBenchmarks
{
    private readonly byte[] _key = BitConverter.GetBytes(42L);
    private readonly OperationGate _gate = new();
    private readonly WriteBarrier _barrier = new();
    private readonly KeyStripeLocks _stripes = new(indexBuckets: 1 << 20);
    private readonly SessionPool<Session> _sessions = new(capacity: 128, () => new Session());

    /// <summary>Admission: every operation enters the store's gate, which disposal closes.</summary>
    [Benchmark]
    public void Gate_EnterExit()
    {
        using OperationGate.Scope admitted = _gate.Enter(this);
    }

    /// <summary>The write barrier, which checkpoints and back-pressure close.</summary>
    [Benchmark]
    public async ValueTask Barrier_EnterExit()
    {
        using WriteBarrier.Scope write = await _barrier.EnterScopeAsync().ConfigureAwait(false);
    }

    /// <summary>The key's stripe: hashing the key (FASTER's hash) to find it.</summary>
    [Benchmark]
    public int Stripe_Of() => _stripes.StripeOf(_key);

    /// <summary>The key's stripe: taking and giving it back.</summary>
    [Benchmark]
    public async ValueTask Stripe_EnterExit()
    {
        using KeyStripeLocks.Scope held = await _stripes.EnterAsync(7).ConfigureAwait(false);
    }

    /// <summary>A FASTER session from the pool, and back.</summary>
    [Benchmark]
    public async ValueTask Session_RentReturn()
    {
        using SessionPool<Session>.Scope lease = await _sessions.RentAsync().ConfigureAwait(false);
    }

    [GlobalCleanup]
    public void Cleanup() => _sessions.Dispose();

    /// <summary>Stands in for a FASTER session: the pool's cost does not depend on what it holds.</summary>
    public sealed class Session : IDisposable
    {
        public void Dispose()
        {
        }
    }
}
