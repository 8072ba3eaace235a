using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Measurement;
using KeyValueStore.LoadTest.Reporting;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// This store as a user opens it: the public <see cref="MixedStorageKVStore{TKey, TValue}"/>, so MessagePack, the value
/// envelope and the facade's checks are all in the measurement. Sized like <see cref="FasterBackend"/> (by
/// <see cref="FasterStoreSizing"/>), on its own files in the run's directory; durability modes differ only in
/// <c>configure</c> (see <see cref="BackendCatalog"/>). Batches are <see cref="WriteBatch{TKey, TValue}"/>s applied with
/// <see cref="MixedStorageKVStore{TKey, TValue}.ApplyBatchAsync"/>.
/// </summary>
/// <remarks>
/// <para>
/// The types carry the load test's records as they are. The key is <see cref="long"/>: a load-test key is a record
/// id written as 8 big-endian bytes (<see cref="RecordCodec.WriteKey"/>), which is read back losslessly, and an
/// application keyed by ids would use that type. MessagePack writes it as an integer of 1 to 9 bytes. A
/// <c>byte[]</c> key would carry the same information but cost an array per operation that a real caller keyed by
/// numbers never allocates.
/// </para>
/// <para>
/// The value is <c>byte[]</c>: the record's bytes are opaque (an id, a version and filler the verifier checks bit
/// for bit), and MessagePack writes a <c>byte[]</c> as one bin of exactly those bytes, 2 to 5 header bytes added. So
/// a read returns the very bytes written and <c>--verify</c> checks them as it checks the engine's. A read allocates
/// the returned array, as every read of the typed store allocates the value it returns. The filler is pseudo-random,
/// so values of at least the compression threshold (1 KB by default) are tried with LZ4 and stay plain: the cost a
/// user with incompressible values pays.
/// </para>
/// </remarks>
internal sealed class TypedBackend : ILoadTestBackend, IDurableFlushCounter, IBatchWriter, ICompactionReporter, IBackgroundWorkObserver
{
    private readonly MixedStorageKVStore<long, byte[]> _store;
    private readonly string _directory;
    private readonly string? _writeAheadLogDirectory;

    /// <summary>Opens the store in the run's directory.</summary>
    /// <param name="context">The run's directory and sizes.</param>
    /// <param name="configure">Changes to the options after sizing, such as a durability mode.</param>
    public TypedBackend(BackendContext context, Action<MixedStorageKVStoreOptions>? configure = null)
    {
        MixedStorageKVStoreOptions options = FasterStoreSizing.Options(context);
        configure?.Invoke(options);
        _directory = context.Directory;
        _writeAheadLogDirectory = options.WriteAheadLogDirectory;
        _store = new MixedStorageKVStore<long, byte[]>(options);
    }

    /// <summary>Upserts the record: the id decoded from the key, the value's bytes as the array the caller holds.</summary>
    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => _store.UpsertAsync(Id(key), WholeArray.Of(value));

    /// <summary>
    /// Writes the batch as one <see cref="WriteBatch{TKey, TValue}"/>, a new one per call as a caller with no batch to
    /// reuse would; the store serializes the values before it returns, so the caller's arrays go in uncopied.
    /// </summary>
    public async ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        var batch = new WriteBatch<long, byte[]>();
        for (int i = 0; i < writes.Count; i++)
        {
            batch.Upsert(Id(writes[i].Key), WholeArray.Of(writes[i].Value));
        }

        await _store.ApplyBatchAsync(batch).ConfigureAwait(false);
    }

    /// <summary>Reads the record into <paramref name="destination"/>; -1 when not found, else the value's full length.</summary>
    public async ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination) =>
        TypedRead.CopyInto(await _store.ReadAsync(Id(key)).ConfigureAwait(false), destination);

    /// <summary>Deletes the record through the public API; <see cref="KeyStatus.Found"/> means it had a value.</summary>
    public async ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) =>
        await _store.DeleteAsync(Id(key)).ConfigureAwait(false) == KeyStatus.Found;

    /// <summary>The sizes of every file in the run's directory: the store's segments, checkpoints and write-ahead log.</summary>
    public long BytesOnDisk() => DirectorySize.OfStore(_directory, _writeAheadLogDirectory);

    /// <summary>The compactor's passes and the journal's checkpoints.</summary>
    public BackgroundMarks Mark() => CompactionSampler.Mark(_store.Engine);

    /// <summary>The engine's compactor's accounting, with the run directory's file sizes as the disk.</summary>
    public CompactionSample SampleCompaction(double seconds) => CompactionSampler.Sample(_store.Engine, BytesOnDisk(), seconds);

    /// <summary>
    /// Gets the store's durable flushes, counted as <see cref="FasterBackend.DurableFlushes"/> counts them (the facade
    /// adds none of its own): checkpoints plus write-ahead log group commits; null with durability none.
    /// </summary>
    public long? DurableFlushes => _store.Engine.Journal.DurableFlushes;

    /// <summary>Gets what one flush is: the engine's, since the facade writes through it.</summary>
    public string FlushNote =>
        "a write-ahead log group commit (the log's tail, ending in a commit record, written through), or a checkpoint (the store's log flushed to its tail, then the checkpoint's metadata written)";

    /// <summary>Closes the store: a durable one takes its last checkpoint.</summary>
    public ValueTask DisposeAsync() => _store.DisposeAsync();

    /// <summary>The record id a load-test key carries (<see cref="RecordIdKey"/>).</summary>
    private static long Id(ReadOnlyMemory<byte> key) => RecordIdKey.Read(key);
}
