using System;
using System.Buffers;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Engine;

/// <summary>
/// What one upsert or delete holds from its admission to its end, besides its turn and its session: the admission, the
/// write barrier once entered, and the value sealed with its checksum when the store keeps them. Its stripe's number
/// goes with it. Whoever holds it disposes it once, when the write ends however it ends; a write that goes on in an async
/// method hands it over.
/// </summary>
internal struct AdmittedWrite : IDisposable
{
    private readonly OperationGate.Scope _admission;
    private readonly byte[]? _sealedValue;
    private WriteBarrier.Scope _barrier;

    public AdmittedWrite(OperationGate.Scope admission, int stripe, byte[]? sealedValue)
    {
        _admission = admission;
        _sealedValue = sealedValue;
        Stripe = stripe;
    }

    /// <summary>Gets the key's stripe.</summary>
    public int Stripe { get; }

    /// <summary>Gets whether the write has passed the write barrier.</summary>
    public bool HoldsBarrier { get; private set; }

    /// <summary>Keeps the write barrier's scope, to exit it when the write ends.</summary>
    public void Entered(WriteBarrier.Scope barrier)
    {
        _barrier = barrier;
        HoldsBarrier = true;
    }

    /// <summary>Exits the write barrier, gives the sealed value's buffer back, then leaves the admission.</summary>
    public readonly void Dispose()
    {
        _barrier.Dispose();
        if (_sealedValue is not null)
        {
            ArrayPool<byte>.Shared.Return(_sealedValue);
        }

        _admission.Dispose();
    }
}
