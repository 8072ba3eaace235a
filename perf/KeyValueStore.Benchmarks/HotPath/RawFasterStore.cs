using System;
using System.IO;
using FASTER.core;
using KeyValueStore.Engine;
using KeyValueStore.Storage;
using StoreSession = FASTER.core.ClientSession<
    FASTER.core.SpanByte, FASTER.core.SpanByte, FASTER.core.SpanByte, KeyValueStore.Storage.PooledBuffer, FASTER.core.Empty, KeyValueStore.Engine.RecordFunctions>;

namespace KeyValueStore.Benchmarks.HotPath;

/// <summary>
/// FASTER 2.6.5 used directly, the floor of the hot-path benchmarks: one <see cref="FasterKV{Key, Value}"/> of
/// <see cref="SpanByte"/>s sized as the engine's options say, and one session of the engine's own callbacks
/// (<see cref="RecordFunctions"/>), so that it does what the engine does for an operation without the engine's layers.
/// </summary>
internal sealed class RawFasterStore : IDisposable
{
    private readonly IDevice _device;
    private readonly FasterKV<SpanByte, SpanByte> _store;

    /// <param name="options">The engine's options, whose index, page, memory and segment sizes the raw store takes.</param>
    /// <param name="logPath">The raw store's log file, deleted when it closes.</param>
    public RawFasterStore(MixedStorageKVStoreOptions options, string logPath)
    {
        _device = Devices.CreateLogDevice(logPath, preallocateFile: false, deleteOnClose: true);
        _store = new FasterKV<SpanByte, SpanByte>(options.IndexNumBuckets, new LogSettings
        {
            LogDevice = _device,
            PageSizeBits = options.PageSizeBits,
            MemorySizeBits = options.MemorySizeBits,
            SegmentSizeBits = options.SegmentSizeBits,
        });
        var functions = new RecordFunctions();
        Session = _store.For(functions).NewSession<RecordFunctions>(functions);
    }

    /// <summary>Gets the one session every call goes through (single-threaded benchmarks only).</summary>
    public StoreSession Session { get; }

    /// <summary>Upserts through FASTER's synchronous API; the key and value arrays must be pinned for good.</summary>
    public void Upsert(byte[] pinnedKey, byte[] pinnedValue)
    {
        SpanByte key = SpanByte.FromFixedSpan(pinnedKey);
        SpanByte value = SpanByte.FromFixedSpan(pinnedValue);
        Status status = Session.Upsert(ref key, ref value);
        if (status.IsPending)
        {
            Session.CompletePending(wait: true);
        }
    }

    /// <summary>
    /// Deletes as the engine does (a read-modify-write whose callbacks turn a live record into a tombstone,
    /// <see cref="RecordFunctions"/>), through FASTER's synchronous API; returns whether a live record existed.
    /// </summary>
    public bool Delete(byte[] pinnedKey)
    {
        SpanByte key = SpanByte.FromFixedSpan(pinnedKey);
        SpanByte noInput = default;
        Status status = Session.RMW(ref key, ref noInput);
        if (status.IsPending)
        {
            throw new InvalidOperationException("An in-memory delete went to the disk.");
        }

        return status.Found;
    }

    public void Dispose()
    {
        Session.Dispose();
        _store.Dispose();
        _device.Dispose();
    }
}
