using System.Threading.Tasks;
using FASTER.core;
using KeyValueStore.Storage;

namespace KeyValueStore.Durability;

/// <summary>
/// A recovered store's FASTER log, the index checkpoint it was recovered with (null when there was none to use), and,
/// when there is one, its write-ahead log, where that lives, and the position to replay it from. <paramref name="Spares"/>
/// is the part of <paramref name="Device"/> keeping emptied segment files for reuse; <paramref name="Commits"/> writes its
/// checkpoints' metadata.
/// </summary>
internal sealed record RecoveredLog(FasterKV<SpanByte, SpanByte> Store, TruncationSafeDevice Device, SegmentRecyclingDevice Spares, CheckpointDeviceFactory CheckpointFiles, CheckpointCommits Commits, IndexCheckpointRecord? Index, WriteAheadLog? WriteAheadLog, WriteAheadLogSite WriteAheadLogSite, WalPosition ReplayFrom)
{
    /// <summary>Closes what recovery opened, for an open that fails after it; deletes nothing.</summary>
    public async ValueTask ReleaseAsync()
    {
        if (WriteAheadLog is not null)
        {
            await WriteAheadLog.DisposeAsync().ConfigureAwait(false);
        }

        Store.Dispose();
        Device.Dispose();
    }
}
