using System;
using System.Threading;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Support;

/// <summary>
/// A device that passes everything to the real one until told to fail: then every write completes with an I/O error
/// (EIO, or ENOSPC for a full disk) and reaches no file, as a failing disk's would. It can also hold writes or reads
/// back, as a slow disk would, until released, or throw from its writes, as a device with a defect would.
/// </summary>
internal sealed class FaultInjectingDevice(IDevice inner) : DelegatingDevice(inner)
{
    /// <summary>errno EIO: an input/output error.</summary>
    public const uint InputOutputError = 5;

    /// <summary>errno ENOSPC: no space left on the device.</summary>
    public const uint NoSpaceLeft = 28;

    private readonly System.Collections.Generic.List<Action> _heldWrites = [];
    private readonly System.Collections.Generic.List<Action> _heldReads = [];
    private bool _holdingReads;
    private uint _largestReadHeld = uint.MaxValue;
    private uint _writeError;
    private uint _readError;
    private long _failedWrites;
    private long _largestRead;
    private bool _holding;
    private Exception? _thrownFromWrites;
    private readonly ManualResetEventSlim _unblockWriteCall = new(false);
    private int _blockNextWriteCall;
    private int _blockedWriteCalls;

    /// <summary>
    /// Gets or sets whether a failed write or read is reported from a pool thread, as FASTER's own device reports one
    /// (the default), rather than on the thread that issued it. Reported on the issuing thread, a failure reaches the
    /// store before the issuing call returns, which hid defects that only a later report shows (a wait that the fault
    /// never ended); tests that want that order too set this to false.
    /// </summary>
    public bool ReportsFailuresElsewhere { get; set; } = true;

    /// <summary>Gets the writes failed so far.</summary>
    public long FailedWrites => Interlocked.Read(ref _failedWrites);

    /// <summary>From now on every write fails with <paramref name="error"/>; 0 lets writes through again.</summary>
    public void FailWrites(uint error) => Volatile.Write(ref _writeError, error);

    /// <summary>From now on every write throws <paramref name="exception"/> to its caller, FASTER; null lets writes through again.</summary>
    public void ThrowFromWrites(Exception? exception) => Volatile.Write(ref _thrownFromWrites, exception);

    /// <summary>Gets the longest read asked of this device since it was made or <see cref="ForgetReads"/>, in bytes.</summary>
    public long LargestRead => Interlocked.Read(ref _largestRead);

    /// <summary>Starts <see cref="LargestRead"/> over.</summary>
    public void ForgetReads() => Interlocked.Exchange(ref _largestRead, 0);

    /// <summary>From now on every read completes with <paramref name="error"/> and reads nothing; 0 lets reads through again.</summary>
    public void FailReads(uint error) => Volatile.Write(ref _readError, error);

    /// <summary>
    /// The next write call blocks its caller's thread until <see cref="UnblockWriteCall"/>, as a device that does its work
    /// (a checksum, a new file, a contended lock) on the caller's thread would; later calls pass.
    /// </summary>
    public void BlockNextWriteCall() => Volatile.Write(ref _blockNextWriteCall, 1);

    /// <summary>Gets how many write calls have blocked their caller so far.</summary>
    public int BlockedWriteCalls => Volatile.Read(ref _blockedWriteCalls);

    /// <summary>Lets the blocked write call go on to the device, and any that would block later.</summary>
    public void UnblockWriteCall() => _unblockWriteCall.Set();

    /// <summary>Gets how many writes are being held back.</summary>
    public int HeldWrites
    {
        get
        {
            lock (_heldWrites)
            {
                return _heldWrites.Count;
            }
        }
    }

    /// <summary>From now on writes are held back: none reaches the file or completes until <see cref="ReleaseWrites"/>.</summary>
    public void HoldWrites()
    {
        lock (_heldWrites)
        {
            _holding = true;
        }
    }

    /// <summary>Issues the held writes, in order, and lets later ones through.</summary>
    public void ReleaseWrites()
    {
        Action[] held;
        lock (_heldWrites)
        {
            _holding = false;
            held = [.. _heldWrites];
            _heldWrites.Clear();
        }

        foreach (Action write in held)
        {
            write();
        }
    }

    public override void WriteAsync(IntPtr sourceAddress, int segmentId, ulong destinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        BlockIfAsked();
        if (!Failed(callback, context) && !Held(() => WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context)))
        {
            Inner.WriteAsync(sourceAddress, segmentId, destinationAddress, numBytesToWrite, callback, context);
        }
    }

    public override void WriteAsync(IntPtr alignedSourceAddress, ulong alignedDestinationAddress, uint numBytesToWrite, DeviceIOCompletionCallback callback, object context)
    {
        BlockIfAsked();
        if (!Failed(callback, context) && !Held(() => WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context)))
        {
            Inner.WriteAsync(alignedSourceAddress, alignedDestinationAddress, numBytesToWrite, callback, context);
        }
    }

    /// <summary>Gets how many reads are being held back.</summary>
    public int HeldReads
    {
        get
        {
            lock (_heldReads)
            {
                return _heldReads.Count;
            }
        }
    }

    /// <summary>From now on reads are held back, as a slow disk would hold them, until <see cref="ReleaseReads"/>.</summary>
    public void HoldReads() => SetHoldingReads(true);

    /// <summary>From now on reads of at most <paramref name="bytes"/> are held back (a record's read, not a scan's page), until <see cref="ReleaseReads"/>.</summary>
    public void HoldReadsOfAtMost(uint bytes)
    {
        lock (_heldReads)
        {
            _largestReadHeld = bytes;
            _holdingReads = true;
        }
    }

    /// <summary>Lets new reads through; those already held stay held until <see cref="ReleaseReads"/>.</summary>
    public void StopHoldingNewReads() => SetHoldingReads(false);

    /// <summary>Issues the held reads, in order, and lets later ones through.</summary>
    public void ReleaseReads()
    {
        Action[] held;
        lock (_heldReads)
        {
            _holdingReads = false;
            held = [.. _heldReads];
            _heldReads.Clear();
        }

        foreach (Action read in held)
        {
            read();
        }
    }

    public override void ReadAsync(int segmentId, ulong sourceAddress, IntPtr destinationAddress, uint readLength, DeviceIOCompletionCallback callback, object context)
    {
        NoteRead(readLength);
        if (!ReadFailed(callback, context) && !HeldRead(readLength, () => Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context)))
        {
            Inner.ReadAsync(segmentId, sourceAddress, destinationAddress, readLength, callback, context);
        }
    }

    public override void ReadAsync(ulong alignedSourceAddress, IntPtr alignedDestinationAddress, uint aligned_read_length, DeviceIOCompletionCallback callback, object context)
    {
        NoteRead(aligned_read_length);
        if (!ReadFailed(callback, context) && !HeldRead(aligned_read_length, () => Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context)))
        {
            Inner.ReadAsync(alignedSourceAddress, alignedDestinationAddress, aligned_read_length, callback, context);
        }
    }

    /// <summary>Keeps <paramref name="write"/> for <see cref="ReleaseWrites"/> while writes are held back; the source buffer stays FASTER's until the write completes.</summary>
    private bool Held(Action write)
    {
        lock (_heldWrites)
        {
            if (_holding)
            {
                _heldWrites.Add(write);
            }

            return _holding;
        }
    }

    private void NoteRead(uint length)
    {
        long largest;
        while (length > (largest = Interlocked.Read(ref _largestRead)) && Interlocked.CompareExchange(ref _largestRead, length, largest) != largest)
        {
        }
    }

    private void SetHoldingReads(bool holding)
    {
        lock (_heldReads)
        {
            _largestReadHeld = uint.MaxValue;
            _holdingReads = holding;
        }
    }

    private bool HeldRead(uint length, Action read)
    {
        lock (_heldReads)
        {
            bool hold = _holdingReads && length <= _largestReadHeld;
            if (hold)
            {
                _heldReads.Add(read);
            }

            return hold;
        }
    }

    private bool ReadFailed(DeviceIOCompletionCallback callback, object context)
    {
        uint error = Volatile.Read(ref _readError);
        if (error == 0)
        {
            return false;
        }

        // What FASTER's own device does when a read throws: the callback with an error and no bytes.
        Report(callback, error, context);
        return true;
    }

    private void Report(DeviceIOCompletionCallback callback, uint error, object context)
    {
        if (ReportsFailuresElsewhere)
        {
            ThreadPool.UnsafeQueueUserWorkItem(_ => callback(error, 0, context), null);
        }
        else
        {
            callback(error, 0, context);
        }
    }

    private void BlockIfAsked()
    {
        if (Interlocked.Exchange(ref _blockNextWriteCall, 0) == 1)
        {
            Interlocked.Increment(ref _blockedWriteCalls);
            _unblockWriteCall.Wait();
        }
    }

    private bool Failed(DeviceIOCompletionCallback callback, object context)
    {
        if (Volatile.Read(ref _thrownFromWrites) is { } exception)
        {
            throw exception;
        }

        uint error = Volatile.Read(ref _writeError);
        if (error == 0)
        {
            return false;
        }

        Interlocked.Increment(ref _failedWrites);
        Report(callback, error, context);
        return true;
    }
}
