using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

public class OperationGateTests
{
    [Fact]
    public void Close_WithNothingInside_IsDrainedAtOnce()
    {
        var gate = new OperationGate();

        Assert.True(gate.Close());

        Assert.True(gate.WhenDrained.IsCompletedSuccessfully);
    }

    [Fact]
    public void Close_WithOperationsInside_DrainsWhenTheLastLeaves()
    {
        var gate = new OperationGate();
        OperationGate.Scope first = gate.Enter(this);
        OperationGate.Scope second = gate.Enter(this);

        Assert.True(gate.Close());
        Assert.False(gate.WhenDrained.IsCompleted);
        first.Dispose();
        Assert.False(gate.WhenDrained.IsCompleted);
        second.Dispose();

        Assert.True(gate.WhenDrained.IsCompletedSuccessfully);
    }

    [Fact]
    public void Enter_AfterClose_ThrowsObjectDisposed_AndSecondCloseReportsFalse()
    {
        var gate = new OperationGate();
        gate.Close();

        Assert.Throws<ObjectDisposedException>(() => gate.Enter(this));
        Assert.False(gate.Close());
        Assert.True(gate.WhenDrained.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task ManyThreadsEnteringAndLeaving_WhileTheGateCloses_DrainOnlyOnceTheLastAdmittedHasLeft()
    {
        // Each round: eight threads cross the gate in a loop, each admission holding a flag up while inside; the gate
        // closes midway. Drained must never be seen while a flag is up, and must come once every thread has stopped.
        // Threads of their own: eight pool threads held at a barrier would wait for the pool to grow, under a full test run.
        for (int round = 0; round < 30; round++)
        {
            var gate = new OperationGate();
            int inside = 0;
            bool drainedWhileInside = false;
            _ = gate.WhenDrained.ContinueWith(_ => drainedWhileInside = Volatile.Read(ref inside) != 0, TaskContinuationOptions.ExecuteSynchronously);
            using var start = new Barrier(9);
            Thread[] threads = Enumerable.Range(0, 8).Select(_ => new Thread(() =>
            {
                start.SignalAndWait();
                while (gate.TryEnter(out OperationGate.Admission admission))
                {
                    Interlocked.Increment(ref inside);
                    Thread.SpinWait(20);
                    Interlocked.Decrement(ref inside);
                    gate.Exit(admission);
                }
            })).ToArray();
            Array.ForEach(threads, thread => thread.Start());

            start.SignalAndWait();
            Thread.SpinWait(2_000);
            Assert.True(gate.Close());
            await gate.WhenDrained.WaitAsync(TimeSpan.FromMinutes(1));
            Assert.All(threads, thread => Assert.True(thread.Join(TimeSpan.FromMinutes(1)), "a thread still crossed the gate a minute after it closed"));

            Assert.False(drainedWhileInside, $"round {round}: drained while an admitted operation was inside");
        }
    }
}
