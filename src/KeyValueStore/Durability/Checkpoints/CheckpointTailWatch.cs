using System.Threading;
using System.Threading.Tasks;
using FASTER.core;

namespace KeyValueStore.Durability;

/// <summary>
/// Tells when the checkpoint under way has fixed its tail: FASTER is about to enter <see cref="Phase.WAIT_FLUSH"/>,
/// having made the log read-only up to its tail, which is the checkpoint's final address. From then on a write lands
/// above everything the checkpoint holds (<see cref="Checkpointer"/> says why that matters).
/// </summary>
/// <remarks>
/// FASTER calls <see cref="BeforeEnteringState"/> inside its state machine's critical section, after the checkpoint's
/// own step for the new phase (which fixes the final address) and before the phase is entered: it only completes a task,
/// whose continuations run elsewhere.
/// </remarks>
internal sealed class CheckpointTailWatch : IStateMachineCallback
{
    private TaskCompletionSource _tailFixed = NewSource();

    /// <summary>Call before starting a checkpoint: the task completes once that checkpoint's tail is fixed.</summary>
    public Task Arm()
    {
        TaskCompletionSource source = NewSource();
        Volatile.Write(ref _tailFixed, source);
        return source.Task;
    }

    /// <inheritdoc/>
    public void BeforeEnteringState<Key, Value>(SystemState next, FasterKV<Key, Value> faster)
    {
        if (next.Phase == Phase.WAIT_FLUSH)
        {
            Volatile.Read(ref _tailFixed).TrySetResult();
        }
    }

    private static TaskCompletionSource NewSource() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
