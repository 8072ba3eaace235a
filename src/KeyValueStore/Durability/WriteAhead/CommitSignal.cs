using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.Durability;

/// <summary>
/// One wake-up shared by every writer waiting for the write-ahead log's commit point to move: pulsed when a commit
/// finishes or fails, when the store faults and when the log closes. A waiter takes <see cref="Next"/>, then checks
/// what it waits for, then awaits the task: a pulse between the two completes the task it took, so none is missed.
/// </summary>
/// <remarks>
/// Why not FASTER's own wait with the fault's token: it registers every waiter on that one token and allocates a
/// completion source, a <c>Task.WhenAny</c> and a state machine of its own for each (748 bytes per pending wait against
/// 141 here; docs/benchmarks.md, "What a Commit-mode write allocates again"). Here a commit round costs one task,
/// whatever the number of writers it wakes.
/// </remarks>
internal sealed class CommitSignal
{
    private TaskCompletionSource _next = NewSource();

    /// <summary>Gets the task the next pulse completes.</summary>
    public Task Next => Volatile.Read(ref _next).Task;

    /// <summary>Wakes every waiter that took <see cref="Next"/> before this call; later ones wait for the next pulse.</summary>
    public void Pulse() => Interlocked.Exchange(ref _next, NewSource()).TrySetResult();

    // Writers' continuations run on the pool, not on the thread that finished the commit, which goes on to the next one.
    private static TaskCompletionSource NewSource() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
