using System;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Storage;

/// <summary>
/// The first failure of a store's disk writes (hybrid-log segments, write-ahead log). From then on the store refuses
/// every operation, and every wait that depends on the disk making progress is abandoned, because FASTER never retries
/// a failed page flush: whatever waits for one would wait forever.
/// </summary>
/// <remarks>
/// Reads are refused too. A write that was in flight when the disk failed may have been applied in part (a batch whose
/// apply was abandoned halfway) though its caller was told it failed; a read must not show that. One rule for every
/// failure keeps it simple: a faulted store is reopened, and recovery restores exactly what was acknowledged.
/// <para>
/// <see cref="Token"/> is cancelled on the thread pool, never on the thread that reports the failure, which may be
/// FASTER's I/O completion thread, where running the abandoned waiters' continuations could block FASTER itself.
/// </para>
/// </remarks>
internal sealed class StoreFault
{
    private readonly CancellationTokenSource _faulted = new();
    private Failure? _failure;

    /// <summary>Gets whether a failure has been reported.</summary>
    public bool IsFaulted => Volatile.Read(ref _failure) is not null;

    /// <summary>Gets a token cancelled shortly after the first failure: waits on FASTER's progress link to it.</summary>
    public CancellationToken Token => _faulted.Token;

    /// <summary>Records <paramref name="cause"/> as the store's fault unless one is already recorded.</summary>
    /// <param name="what">What failed, as the exception names it (for instance "write-ahead log").</param>
    /// <param name="cause">The failure.</param>
    /// <returns>Whether this was the first failure.</returns>
    public bool Report(string what, Exception cause)
    {
        if (Interlocked.CompareExchange(ref _failure, new Failure(what, cause), null) is not null)
        {
            return false;
        }

        ThreadPool.UnsafeQueueUserWorkItem(static source => source.Cancel(), _faulted, preferLocal: false);
        return true;
    }

    /// <summary>
    /// Waits for <paramref name="task"/>, which waits on FASTER's progress, or gives up on it once the disk has failed:
    /// FASTER never retries a failed page flush, so the task would never complete. Whatever the task throws once the
    /// disk has failed (FASTER turns a failed page read into its own exception) is the failure's doing: the caller gets
    /// the store's fault.
    /// </summary>
    /// <exception cref="StoreFaultedException">The disk failed before the task completed.</exception>
    public Task WaitUnlessFaultedAsync(Task task) => WaitUnlessFaultedAsync(AsResult(task));

    /// <inheritdoc cref="WaitUnlessFaultedAsync(Task)"/>
    public async Task<T> WaitUnlessFaultedAsync<T>(Task<T> task)
    {
        try
        {
            return await task.WaitAsync(Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is not StoreFaultedException && IsFaulted)
        {
            throw ToException();
        }
    }

    private static async Task<bool> AsResult(Task task)
    {
        await task.ConfigureAwait(false);
        return true;
    }

    /// <summary>The fence: throws once a failure is recorded, so that no write after it is acknowledged.</summary>
    /// <exception cref="StoreFaultedException">A failure is recorded.</exception>
    public void ThrowIfFaulted()
    {
        if (Volatile.Read(ref _failure) is not null)
        {
            throw ToException();
        }
    }

    /// <summary>A new exception for the recorded failure, for a caller whose operation it stopped.</summary>
    public StoreFaultedException ToException()
    {
        Failure failure = Volatile.Read(ref _failure) ?? throw new InvalidOperationException("No failure has been reported.");
        return new StoreFaultedException(failure.What, failure.Cause);
    }

    private sealed record Failure(string What, Exception Cause);
}
