using System;
using System.Buffers;
using System.Collections.Concurrent;
using System.IO;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using StoreSession = FASTER.core.ClientSession<
    FASTER.core.SpanByte, FASTER.core.SpanByte, FASTER.core.SpanByte, KeyValueStore.Storage.PooledBuffer, FASTER.core.Empty, KeyValueStore.Engine.RecordFunctions>;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// The ceiling our engine is measured against: FASTER 2.6.5's <see cref="FasterKV{Key, Value}"/> of
/// <see cref="SpanByte"/>s used directly, with nothing of ours around it (no store, no checksums, no key stripes, no
/// epoch guard, no compaction), storing the load test's key and value bytes as they are. Its log has the sizes
/// <see cref="FasterStoreSizing"/> gives the <c>faster</c> backend (log memory, page, segment, index), on one
/// preallocated segmented file in the run's directory that FASTER deletes on close. Durability none: no checkpoint,
/// no commit; a write lives in the log's memory until FASTER evicts its page to the file.
/// </summary>
/// <remarks>
/// <para>
/// A <see cref="ClientSession{Key, Value, Input, Output, Context, Functions}"/> admits one caller at a time, so
/// sessions are pooled: an operation takes one from a <see cref="ConcurrentBag{T}"/>, or opens one when none is free,
/// and gives it back once FASTER has completed the operation, pending or not; the pool grows to the largest number
/// of concurrent callers. Upserts and reads reuse the engine's one place that points <see cref="SpanByte"/>s at
/// caller memory (<see cref="PinnedRecord"/>) and its session callbacks (<see cref="RecordFunctions"/>: upserts copy
/// the value into the log, reads copy it out into a pooled buffer), so this backend adds no unsafe code.
/// </para>
/// <para>
/// Deletes are FASTER's own <c>Delete</c>, which appends a tombstone without reading the disk: for a key whose
/// record is only on disk it cannot tell found from not found, and returns what FASTER's status says (not found).
/// Our engine deletes through read-modify-write to know (see <see cref="RecordFunctions"/>).
/// </para>
/// <para>
/// No batches: FASTER has no write of several keys that readers see whole, so <see cref="IBatchWriter"/> is not
/// implemented and <c>--batch-size</c> above 1 is refused for this backend.
/// </para>
/// </remarks>
internal sealed class RawFasterBackend : ILoadTestBackend
{
    private const string LogFileName = "raw-faster.log";

    private readonly string _directory;
    private readonly IDevice _device;
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly RecordFunctions _functions = new();
    private readonly ConcurrentBag<StoreSession> _idle = [];
    private readonly ConcurrentBag<StoreSession> _all = [];
    private bool _disposed;

    /// <param name="context">The run's directory and sizes.</param>
    public RawFasterBackend(BackendContext context)
    {
        MixedStorageKVStoreOptions sizes = FasterStoreSizing.Options(context);
        _directory = context.Directory;
        _device = Devices.CreateLogDevice(Path.Combine(context.Directory, LogFileName), preallocateFile: true, deleteOnClose: true);
        try
        {
            _store = new FasterKV<SpanByte, SpanByte>(sizes.IndexNumBuckets, new LogSettings
            {
                LogDevice = _device,
                PageSizeBits = sizes.PageSizeBits,
                MemorySizeBits = sizes.MemorySizeBits,
                SegmentSizeBits = sizes.SegmentSizeBits,
            });
        }
        catch
        {
            _device.Dispose();
            throw;
        }
    }

    public async ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value)
    {
        StoreSession session = Rent();
        try
        {
            var result = await PinnedRecord.UpsertAsync(session, key.Span, value.Span).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await result.CompleteAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            _idle.Add(session);
        }
    }

    public async ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        StoreSession session = Rent();
        (Status status, PooledBuffer value) result;
        try
        {
            // Completes the read, from the log's memory or, pending, from the file (the store's own way: PinnedRecord.TryRead says why).
            result = PinnedRecord.TryRead(session, key.Span, locate: false, out Status status, out PooledBuffer found)
                ? (status, found)
                : await PendingRead.CompleteAsync(session).ConfigureAwait(false);
        }
        finally
        {
            _idle.Add(session);
        }

        PooledBuffer value = result.value;
        try
        {
            if (!result.status.Found)
            {
                return -1;
            }

            value.Span[..Math.Min(value.Length, destination.Length)].CopyTo(destination.Span);
            return value.Length;
        }
        finally
        {
            value.Return();
        }
    }

    /// <summary>FASTER's <c>Delete</c>: true when its status says found, which for a key only on disk it never does (see the remarks).</summary>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key)
    {
        StoreSession session = Rent();
        try
        {
            // The key is pinned for the whole operation; FASTER reads it only while the call runs, or copies it if it goes pending.
            using MemoryHandle pin = key.Pin();
            SpanByte keySpanByte = SpanByte.FromFixedSpan(key.Span);
            var result = await session.DeleteAsync(ref keySpanByte).ConfigureAwait(false);
            while (result.Status.IsPending)
            {
                result = await result.CompleteAsync().ConfigureAwait(false);
            }

            return result.Status.Found;
        }
        finally
        {
            _idle.Add(session);
        }
    }

    /// <summary>The log's segment files, as their sizes (FASTER preallocates whole segments).</summary>
    public long BytesOnDisk() => DirectorySize.Of(_directory);

    /// <summary>Closes every session, then the store, then its device, which deletes the log's files; idempotent.</summary>
    public ValueTask DisposeAsync()
    {
        if (!_disposed)
        {
            _disposed = true;
            foreach (StoreSession session in _all)
            {
                session.Dispose();
            }

            _store.Dispose();
            _device.Dispose();
        }

        return ValueTask.CompletedTask;
    }

    private StoreSession Rent()
    {
        if (_idle.TryTake(out StoreSession? session))
        {
            return session;
        }

        session = _store.For(_functions).NewSession<RecordFunctions>(_functions);
        _all.Add(session);
        return session;
    }
}
