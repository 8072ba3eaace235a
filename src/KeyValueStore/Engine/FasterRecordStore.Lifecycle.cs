using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Concurrency;
using KeyValueStore.Diagnostics;
using KeyValueStore.Durability;
using KeyValueStore.Storage;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Engine;

/// <summary>Opening the store's files, replaying the write-ahead log, and disposal: drain, last checkpoint, release.</summary>
internal sealed partial class FasterRecordStore
{
    /// <summary>
    /// Replays the write-ahead log into the recovered store, before any caller can see it. A store no longer in Commit
    /// mode then checkpoints everything and deletes the log. A damaged log releases the store's files and throws.
    /// </summary>
    private void ReplayOrRelease(WriteAheadLog writeAheadLog, WalPosition from, DurabilityMode durability, TimeProvider timeProvider)
    {
        try
        {
            long started = timeProvider.GetTimestamp();
            long until = writeAheadLog.CommittedUntilAddress;

            // Off the caller's synchronization context: replay awaits FASTER, and a constructor cannot be async.
            WalReplayResult replayed = Task.Run(() => writeAheadLog.ReplayAsync(from, ApplyReplayedAsync)).GetAwaiter().GetResult();
            _fault.ThrowIfFaulted();
            StoreEvents.WriteAheadLogReplayed(_logger, from.Address, until, replayed.Transactions, replayed.Writes, replayed.IncompleteTransactions, timeProvider.GetElapsedTime(started));
            if (durability != DurabilityMode.Commit)
            {
                Task.Run(() => _checkpointer!.RetireWriteAheadLogAsync()).GetAwaiter().GetResult();
                writeAheadLog.DisposeAsync().AsTask().GetAwaiter().GetResult();
                WriteAheadLog.DeleteFiles(writeAheadLog.Directory);
                StoreEvents.WriteAheadLogRetired(_logger, writeAheadLog.Directory, durability);
            }
        }
        catch (Exception e)
        {
            writeAheadLog.DisposeAsync().AsTask().GetAwaiter().GetResult();
            ReleaseEngineAndFiles();
            if (_fault.IsFaulted)
            {
                // The disk failed while recovery read or wrote it: nothing was acknowledged yet, the directory is what to fix.
                throw new LogDirectoryUnavailableException(_ownedLayout!.Directory, e is StoreFaultedException ? e : _fault.ToException());
            }

            throw;
        }
    }

    /// <summary>Applies one replayed transaction in order, through the same path as a live batch.</summary>
    private async ValueTask ApplyReplayedAsync(IReadOnlyList<BatchWrite> writes)
    {
        using SessionPool<StoreSession>.Scope lease = await _sessions.RentAsync(CancellationToken.None).ConfigureAwait(false);
        for (int i = 0; i < writes.Count; i++)
        {
            await ApplyInSessionAsync(lease.Session, writes[i]).ConfigureAwait(false);
        }
    }

    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    /// <summary>
    /// Stops admitting operations, stops the compactor (waiting for a compaction in progress), waits for the admitted operations, then releases sessions, FASTER and the
    /// device (which deletes the segment files when asked). Idempotent: every caller awaits the same disposal.
    /// </summary>
    public ValueTask DisposeAsync()
    {
        if (_gate.Close())
        {
            _ = ReleaseAfterDrainAsync();
        }

        return new ValueTask(_disposed.Task);
    }

    private async Task ReleaseAfterDrainAsync()
    {
        try
        {
            try
            {
                await Compactor.DisposeAsync().ConfigureAwait(false);
                await _gate.WhenDrained.ConfigureAwait(false);
                if (_checkpointer is not null)
                {
                    // After the drain, so that the last checkpoint holds every write.
                    await _checkpointer.DisposeAsync().ConfigureAwait(false);
                }

                if (_writeAheadLog is not null && !_writeAheadLog.IsFaulted)
                {
                    // Persists the log's new begin address, which deletes the segments the last checkpoint made unneeded.
                    await _writeAheadLog.CommitAsync().ConfigureAwait(false);
                }
            }
            finally
            {
                if (_writeAheadLog is not null)
                {
                    await _writeAheadLog.DisposeAsync().ConfigureAwait(false);
                }

                // Also when the last checkpoint failed: the files are then released, to be recovered from the previous one.
                ReleaseEngineAndFiles();
            }

            StoreEvents.StoreClosed(_logger, _ownedDevice is null ? "left to the caller" : _deleteLogOnClose ? "deleted" : "kept");
            _disposed.SetResult();
        }
        catch (Exception e)
        {
            _disposed.SetException(e);
        }
    }

    private void ReleaseEngineAndFiles()
    {
        try
        {
            _sessions.Dispose();
            _epochNudger.Dispose();
            if (_ownedDevice is not null)
            {
                // Truncations run inside the FasterKV's epoch: let them finish before it goes.
                _ownedDevice.StopTruncations();
                FasterKV.Dispose();
                _ownedDevice.Dispose();
            }
        }
        finally
        {
            if (_deleteLogOnClose)
            {
                _fileLock?.ReleaseAndDelete();
            }
            else
            {
                _fileLock?.Dispose();
            }
        }
    }

    /// <summary>
    /// The FASTER store, device, files and file lock a store runs on, and the fault its devices report to; all but the
    /// store and the fault are null when the caller owns the store (whose device failures are then the caller's to see).
    /// </summary>
    private sealed record OwnedLog(
        FasterKV<SpanByte, SpanByte> FasterKV,
        StoreFault Fault,
        TruncationSafeDevice? Device,
        LogFileLayout? Layout,
        StoreFileLock? Lock,
        CheckpointDeviceFactory? CheckpointFiles = null,
        WriteAheadLog? WriteAheadLog = null,
        WalPosition ReplayFrom = default)
    {
        /// <summary>Wraps a caller's FasterKV; rejects durable settings before any session or timer exists.</summary>
        public static OwnedLog Supplied(FasterKV<SpanByte, SpanByte> fasterKV, StoreSettings settings)
        {
            if (settings.IsDurable)
            {
                throw new InvalidStoreOptionsException([$"{nameof(MixedStorageKVStoreOptions)}.{nameof(MixedStorageKVStoreOptions.Durability)} is {settings.Durability}, but a pre-built FasterKV was supplied; its owner takes its checkpoints. Use {nameof(DurabilityMode.None)}, or let the store build its own FasterKV."]);
            }

            return new OwnedLog(fasterKV, new StoreFault(), null, null, null);
        }

        public static OwnedLog Create(StoreSettings settings, RecordFormat format, ILogger logger, TimeProvider timeProvider)
        {
            var layout = new LogFileLayout(settings.LogDirectory, settings.LogFileNamePrefix);
            layout.EnsureWritable();
            StoreFileLock fileLock = StoreFileLock.Acquire(layout.LockFilePath);
            var fault = new StoreFault();
            try
            {
                if (settings.IsDurable)
                {
                    RecoveredLog recovered = StoreRecovery.Open(settings, layout, format, fault, logger, timeProvider);
                    if (fault.IsFaulted)
                    {
                        // A read failed during recovery: FASTER saw zeros where the bytes were, so what it recovered is not the store.
                        recovered.Release();
                        fault.ThrowIfFaulted();
                    }

                    return new OwnedLog(recovered.Store, fault, recovered.Device, layout, fileLock, recovered.CheckpointFiles, recovered.WriteAheadLog, recovered.ReplayFrom);
                }

                if (File.Exists(layout.ManifestPath))
                {
                    // A durable store lives in these files: a scratch store would overwrite its segments and, on close, delete them.
                    throw new StoreManifestMismatchException(
                        layout.ManifestPath, nameof(MixedStorageKVStoreOptions.Durability), $"{DurabilityMode.Checkpoint} or {DurabilityMode.Commit} (a durable store)", nameof(DurabilityMode.None));
                }

                (FasterKV<SpanByte, SpanByte> fasterKV, TruncationSafeDevice device, _) = FasterLogFactory.Create(settings, layout, reopenExistingSegments: false, fault);
                return new OwnedLog(fasterKV, fault, device, layout, fileLock);
            }
            catch (Exception e) when (fault.IsFaulted)
            {
                // The disk failed while the store opened; whatever that made recovery report (a damaged-looking file), the
                // disk is the cause to name, and the files are left for an open once it is fixed.
                fileLock.Dispose();
                throw new LogDirectoryUnavailableException(layout.Directory, e is StoreFaultedException ? e : fault.ToException());
            }
            catch (IOException e)
            {
                // A full or failing disk while files are created or preallocated: the directory is what the user must fix.
                fileLock.Dispose();
                throw new LogDirectoryUnavailableException(layout.Directory, e);
            }
            catch
            {
                fileLock.Dispose();
                throw;
            }
        }
    }
}
