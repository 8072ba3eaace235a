using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Storage;

namespace KeyValueStore.Engine;

/// <summary>Reads of one key: a session, FASTER's read, the value's checksum, decoding in place.</summary>
internal sealed partial class FasterRecordStore
{
    /// <summary>Reads a key. When found, the value is in a pooled buffer the caller must <see cref="PooledBuffer.Return"/>.</summary>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<(bool Found, PooledBuffer Value)> ReadAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false);
        return await ReadInSessionAsync(lease.Session, key).ConfigureAwait(false);
    }

    /// <summary>
    /// Reads a key and hands its value to <paramref name="decoder"/> while the pooled copy of it is still held; the copy
    /// goes back to the pool before this returns, so no caller ever holds it.
    /// </summary>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<(bool Found, T Value)> ReadAsync<T>(ReadOnlyMemory<byte> key, IValueDecoder<T> decoder, CancellationToken cancellationToken = default)
    {
        _fault.ThrowIfFaulted();
        using OperationGate.Scope admission = _gate.Enter(this);
        (bool found, PooledBuffer value) read;
        using (SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(cancellationToken).ConfigureAwait(false))
        {
            read = await ReadInSessionAsync(lease.Session, key).ConfigureAwait(false);
        }

        return Decode(read, decoder);
    }

    /// <summary>
    /// Reads a key in <paramref name="session"/>. A read that finds nothing while the log's begin address moved is read
    /// again: FASTER 2.6.5 reports a record as not found when a compaction moves the begin address past it while the read
    /// waits for the disk (<c>ContinuePendingRead</c> gives up on an address below the begin address), though the
    /// compaction copied the live record to the tail first. Only reads that find nothing pay for the check. A read
    /// waiting on the disk ends with the store's fault as soon as the store faults (<see cref="WaitForIssuedAsync"/>).
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(bool Found, PooledBuffer Value)> ReadInSessionAsync(StoreSession session, ReadOnlyMemory<byte> key)
    {
        while (true)
        {
            long beginAddress = FasterKV.Log.BeginAddress;
            if (!PinnedRecord.TryRead(session, key.Span, locate: false, out Status status, out PooledBuffer read))
            {
                (status, read) = await WaitForIssuedAsync(session, PendingRead.CompleteAsync(session)).ConfigureAwait(false);
            }

            (bool found, PooledBuffer value, bool sealBroken) = OpenReadResult(key.Span, status, read);
            if (sealBroken)
            {
                throw await ChecksumMismatchOfAsync(session, key).ConfigureAwait(false);
            }

            if (found || FasterKV.Log.BeginAddress == beginAddress)
            {
                return (found, value);
            }
        }
    }

    /// <summary>Decodes a read's pooled value, if any, and gives the buffer back whatever the decoder does.</summary>
    private static (bool Found, T Value) Decode<T>((bool Found, PooledBuffer Value) read, IValueDecoder<T> decoder)
    {
        if (!read.Found)
        {
            return (false, default!);
        }

        try
        {
            return (true, decoder.Decode(read.Value.Memory));
        }
        finally
        {
            read.Value.Return();
        }
    }

    /// <summary>
    /// Turns a completed read into (found, value), checking the value's checksum when the store keeps them; a value that
    /// fails it is given back and reported as a broken seal.
    /// </summary>
    private (bool Found, PooledBuffer Value, bool SealBroken) OpenReadResult(ReadOnlySpan<byte> key, Status status, PooledBuffer value)
    {
        // A read from a failing disk ends as "not found" (see FaultReportingDevice), which must not reach the caller.
        if (_fault.IsFaulted)
        {
            if (status.Found)
            {
                value.Return();
            }

            _fault.ThrowIfFaulted();
        }

        if (!status.Found)
        {
            return (false, default, false);
        }

        if (_valueChecksums && !ValueChecksum.TryOpen(key, ref value))
        {
            value.Return();
            return (false, default, true);
        }

        return (true, value, false);
    }

    /// <summary>
    /// The error for <paramref name="key"/>'s value failing its checksum, naming where the record lies. Located by a
    /// second read (<see cref="RecordLocation"/>): the failed read's metadata names, for a value read from the disk,
    /// where the read started rather than the record it found.
    /// </summary>
    private async ValueTask<ValueChecksumMismatchException> ChecksumMismatchOfAsync(StoreSession session, ReadOnlyMemory<byte> key)
    {
        RecordLocation? found = await RecordLocation.OfLatestAsync(session, key, _fault).ConfigureAwait(false);

        // Nothing is found only when the key was deleted in between: then no address is known.
        return ChecksumMismatchAt(found?.Address ?? 0);
    }
}
