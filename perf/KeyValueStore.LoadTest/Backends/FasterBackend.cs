using System;
using System.Buffers;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Engine;
using KeyValueStore.LoadTest.Measurement;
using KeyValueStore.LoadTest.Reporting;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// This store: the engine, <see cref="FasterRecordStore"/>, on its own files in the run's directory,
/// sized by <see cref="FasterStoreSizing"/>. Durability modes differ only in their options, so each
/// mode is this class with a different <c>configure</c> (see <see cref="BackendCatalog"/>). A durable
/// mode counts its checkpoints as its durable flushes. Batches are the store's own atomic batches
/// (<see cref="FasterRecordStore.ApplyBatchAsync"/>); in Commit mode one completes once all of it is durable.
/// </summary>
internal sealed class FasterBackend : ILoadTestBackend, IDurableFlushCounter, IBatchWriter, ICompactionReporter, IBackgroundWorkObserver
{
    private readonly FasterRecordStore _store;
    private readonly string _directory;
    private readonly string? _writeAheadLogDirectory;

    /// <param name="context">The run's directory and sizes.</param>
    /// <param name="configure">Changes to the options after sizing, such as a durability mode.</param>
    public FasterBackend(BackendContext context, Action<MixedStorageKVStoreOptions>? configure = null)
    {
        MixedStorageKVStoreOptions options = FasterStoreSizing.Options(context);
        configure?.Invoke(options);
        _directory = context.Directory;
        _writeAheadLogDirectory = options.WriteAheadLogDirectory;
        _store = StoreOpener.Open(StoreSettingsValidator.Validate(options), NullLogger.Instance);
    }

    public ValueTask UpsertAsync(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => _store.UpsertAsync(key, value);

    public async ValueTask WriteBatchAsync(IReadOnlyList<(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value)> writes)
    {
        // The store takes its own write type; a pooled array of them spares an allocation per batch. Returned
        // cleared, so the pool keeps no reference to the caller's buffers.
        BatchWrite[] batch = ArrayPool<BatchWrite>.Shared.Rent(writes.Count);
        try
        {
            for (int i = 0; i < writes.Count; i++)
            {
                batch[i] = BatchWrite.Upsert(writes[i].Key, writes[i].Value);
            }

            await _store.ApplyBatchAsync(new ArraySegment<BatchWrite>(batch, 0, writes.Count)).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<BatchWrite>.Shared.Return(batch, clearArray: true);
        }
    }

    public async ValueTask<int> ReadAsync(ReadOnlyMemory<byte> key, Memory<byte> destination)
    {
        (bool found, PooledBuffer value) = await _store.ReadAsync(key).ConfigureAwait(false);
        if (!found)
        {
            return -1;
        }

        try
        {
            int length = value.Length;
            value.Span[..Math.Min(length, destination.Length)].CopyTo(destination.Span);
            return length;
        }
        finally
        {
            value.Return();
        }
    }

    /// <summary>The store's own delete: exact, since it reads the key's record (from disk if need be) before removing it.</summary>
    public ValueTask<bool> DeleteAsync(ReadOnlyMemory<byte> key) => _store.DeleteAsync(key);

    public long BytesOnDisk() => DirectorySize.OfStore(_directory, _writeAheadLogDirectory);

    /// <summary>The compactor's passes and the journal's checkpoints.</summary>
    public BackgroundMarks Mark() => CompactionSampler.Mark(_store);

    /// <summary>The compactor's accounting, with the run directory's file sizes as the disk.</summary>
    public CompactionSample SampleCompaction(double seconds) => CompactionSampler.Sample(_store, BytesOnDisk(), seconds);

    /// <summary>
    /// Gets the store's durable flushes: its checkpoints, plus in Commit mode its write-ahead log's group commits; null
    /// with durability none, which makes nothing durable.
    /// </summary>
    public long? DurableFlushes => _store.Journal.DurableFlushes;

    public string FlushNote =>
        "a write-ahead log group commit (the log's tail, ending in a commit record, written through), or a checkpoint (the store's log flushed to its tail, then the checkpoint's metadata written)";

    public ValueTask DisposeAsync() => _store.DisposeAsync();
}
