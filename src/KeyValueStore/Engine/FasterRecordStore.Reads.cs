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
    /// <remarks>
    /// Not an async method: a read that gets a session at once and that FASTER answers from memory returns a completed
    /// task without entering a state machine; one that waits (for a session, or for the disk) goes on in
    /// <see cref="ReadOnceRentedAsync"/> or <see cref="FinishReadAsync"/>, which take over the admission and the session.
    /// Errors, even those found before anything waits, come back in the returned task.
    /// </remarks>
    public ValueTask<(bool Found, PooledBuffer Value)> ReadAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
    {
        bool admitted = false;
        OperationGate.Scope admission = default;
        try
        {
            _fault.ThrowIfFaulted();
            admission = _gate.Enter(this);
            admitted = true;
            ValueTask<SessionPool<StoreSession>.Scope> renting = _sessions.RentAsync(cancellationToken);
            if (!renting.IsCompletedSuccessfully)
            {
                admitted = false;
                return ReadOnceRentedAsync(admission, renting, key);
            }

            SessionPool<StoreSession>.Scope lease = renting.Result;
            ValueTask<(bool Found, PooledBuffer Value)> read;
            try
            {
                read = ReadInSessionAsync(lease.Session, key);
            }
            catch
            {
                lease.Dispose();
                throw;
            }

            if (!read.IsCompleted)
            {
                admitted = false;
                return FinishReadAsync(admission, lease, read);
            }

            lease.Dispose();
            return read;
        }
        catch (Exception e)
        {
            return ValueTask.FromException<(bool Found, PooledBuffer Value)>(e);
        }
        finally
        {
            if (admitted)
            {
                admission.Dispose();
            }
        }
    }

    /// <summary>
    /// Reads a key and hands its value to <paramref name="decoder"/> while the pooled copy of it is still held; the copy
    /// goes back to the pool before this returns, so no caller ever holds it. Not an async method, as
    /// <see cref="ReadAsync(ReadOnlyMemory{byte}, CancellationToken)"/> says.
    /// </summary>
    /// <exception cref="ValueChecksumMismatchException">Value checksums are on and the stored value fails its checksum.</exception>
    public ValueTask<(bool Found, T Value)> ReadAsync<T>(ReadOnlyMemory<byte> key, IValueDecoder<T> decoder, CancellationToken cancellationToken = default)
    {
        ValueTask<(bool Found, PooledBuffer Value)> read = ReadAsync(key, cancellationToken);
        if (!read.IsCompletedSuccessfully)
        {
            return DecodeOnceReadAsync(read, decoder);
        }

        try
        {
            return new ValueTask<(bool Found, T Value)>(Decode(read.Result, decoder));
        }
        catch (Exception e)
        {
            return ValueTask.FromException<(bool Found, T Value)>(e);
        }
    }

    /// <summary>The rest of a read that waits for a session: it owns <paramref name="admission"/> from here.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(bool Found, PooledBuffer Value)> ReadOnceRentedAsync(
        OperationGate.Scope admission, ValueTask<SessionPool<StoreSession>.Scope> renting, ReadOnlyMemory<byte> key)
    {
        using (admission)
        {
            using SessionPool<StoreSession>.Scope lease = await renting.ConfigureAwait(false);
            return await ReadInSessionAsync(lease.Session, key).ConfigureAwait(false);
        }
    }

    /// <summary>The rest of a read that waits in its session (for the disk): it owns the admission and the session from here.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<(bool Found, PooledBuffer Value)> FinishReadAsync(
        OperationGate.Scope admission, SessionPool<StoreSession>.Scope lease, ValueTask<(bool Found, PooledBuffer Value)> read)
    {
        using (admission)
        using (lease)
        {
            return await read.ConfigureAwait(false);
        }
    }

    /// <summary>The rest of a decoding read whose read waited, or failed: decodes once it is read.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<(bool Found, T Value)> DecodeOnceReadAsync<T>(ValueTask<(bool Found, PooledBuffer Value)> read, IValueDecoder<T> decoder) =>
        Decode(await read.ConfigureAwait(false), decoder);

    /// <summary>
    /// Reads a key in <paramref name="session"/>. A read that finds nothing while the log's begin address moved is read
    /// again: FASTER 2.6.5 reports a record as not found when a compaction moves the begin address past it while the read
    /// waits for the disk (<c>ContinuePendingRead</c> gives up on an address below the begin address), though the
    /// compaction copied the live record to the tail first. Only reads that find nothing pay for the check. A read
    /// waiting on the disk ends with the store's fault as soon as the store faults (<see cref="WaitForIssuedAsync"/>).
    /// </summary>
    /// <remarks>
    /// Not an async method: a read FASTER answers from memory returns at once, and only one that waits for the disk, read
    /// again or fails its checksum goes on in <see cref="ReadInSessionSlowAsync"/>. It may throw (a faulted store) rather
    /// than return a failed task: its callers are async methods, or catch.
    /// </remarks>
    private ValueTask<(bool Found, PooledBuffer Value)> ReadInSessionAsync(StoreSession session, ReadOnlyMemory<byte> key)
    {
        ReadStep step = TryReadAtOnce(session, key.Span, out long beginAddress, out (bool Found, PooledBuffer Value) result);
        return step == ReadStep.Done ? new ValueTask<(bool Found, PooledBuffer Value)>(result) : ReadInSessionSlowAsync(session, key, beginAddress, step);
    }

    /// <summary><see cref="ReadInSessionAsync"/> from the <paramref name="step"/> its first try stopped at.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<(bool Found, PooledBuffer Value)> ReadInSessionSlowAsync(StoreSession session, ReadOnlyMemory<byte> key, long beginAddress, ReadStep step)
    {
        (bool Found, PooledBuffer Value) result = default;
        while (true)
        {
            if (step == ReadStep.Pending)
            {
                (Status status, PooledBuffer read) = await WaitForIssuedAsync(session, PendingRead.CompleteAsync(session)).ConfigureAwait(false);
                step = Classify(key.Span, status, read, beginAddress, out result);
            }
            else if (step == ReadStep.ReadAgain)
            {
                step = TryReadAtOnce(session, key.Span, out beginAddress, out result);
            }

            if (step == ReadStep.Done)
            {
                return result;
            }

            if (step == ReadStep.SealBroken)
            {
                throw await ChecksumMismatchOfAsync(session, key).ConfigureAwait(false);
            }
        }
    }

    /// <summary>Issues a read of <paramref name="key"/> and, when FASTER answers it from memory, says what comes next.</summary>
    private ReadStep TryReadAtOnce(StoreSession session, ReadOnlySpan<byte> key, out long beginAddress, out (bool Found, PooledBuffer Value) result)
    {
        beginAddress = FasterKV.Log.BeginAddress;
        if (!PinnedRecord.TryRead(session, key, locate: false, out Status status, out PooledBuffer read))
        {
            result = default;
            return ReadStep.Pending;
        }

        return Classify(key, status, read, beginAddress, out result);
    }

    /// <summary>What a completed read of <paramref name="key"/>, issued at <paramref name="beginAddress"/>, leaves to do.</summary>
    private ReadStep Classify(ReadOnlySpan<byte> key, Status status, PooledBuffer read, long beginAddress, out (bool Found, PooledBuffer Value) result)
    {
        (bool found, PooledBuffer value, bool sealBroken) = OpenReadResult(key, status, read);
        result = (found, value);
        return sealBroken ? ReadStep.SealBroken
            : found || FasterKV.Log.BeginAddress == beginAddress ? ReadStep.Done
            : ReadStep.ReadAgain;
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
