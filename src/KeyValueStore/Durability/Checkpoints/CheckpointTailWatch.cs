using System;
using System.Threading;
using FASTER.core;

namespace KeyValueStore.Durability;

/// <summary>
/// Tells when the checkpoint under way has fixed its tail: FASTER is about to enter <see cref="Phase.WAIT_FLUSH"/>,
/// having made the log read-only up to its tail, which is the checkpoint's final address. From then on a write lands
/// above everything the checkpoint holds (<see cref="Checkpointer"/> says why that matters).
/// </summary>
/// <remarks>
/// FASTER calls <see cref="BeforeEnteringState"/> inside its state machine's critical section, after the checkpoint's
/// own step for the new phase (which fixes the final address) and before the phase is entered, on whichever thread
/// made the step: the action armed must be short and must not call into FASTER (<see cref="CheckpointWriterHold.Release"/>
/// only opens a barrier). Threads entering FASTER meanwhile wait for the phase to be entered.
/// </remarks>
internal sealed class CheckpointTailWatch : IStateMachineCallback
{
    private Action? _onTailFixed;

    /// <summary>Call before starting a checkpoint: <paramref name="onTailFixed"/> runs once that checkpoint's tail is fixed.</summary>
    public void Arm(Action onTailFixed) => Volatile.Write(ref _onTailFixed, onTailFixed);

    /// <summary>Call once the checkpoint has ended: no later step runs the action.</summary>
    public void Disarm() => Volatile.Write(ref _onTailFixed, null);

    /// <inheritdoc/>
    public void BeforeEnteringState<Key, Value>(SystemState next, FasterKV<Key, Value> faster)
    {
        if (next.Phase == Phase.WAIT_FLUSH)
        {
            Interlocked.Exchange(ref _onTailFixed, null)?.Invoke();
        }
    }
}
