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

    /// <summary>The close's own count must see a single operation inside: the test above has two, so an exit always comes first.</summary>
    [Fact]
    public void Close_WithOneOperationInside_DrainsOnlyWhenItLeaves()
    {
        var gate = new OperationGate();
        OperationGate.Scope only = gate.Enter(this);

        Assert.True(gate.Close());
        Assert.False(gate.WhenDrained.IsCompleted);
        only.Dispose();

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
        // Each round: eight threads cross the gate in a loop and, while admitted, look at WhenDrained; the gate closes
        // midway. An admitted operation that sees the gate drained is the defect; the drain must still come once every
        // thread has stopped. Threads of their own: eight pool threads held at a barrier would wait for the pool to grow.
        for (int round = 0; round < 30; round++)
        {
            var gate = new OperationGate();
            int drainedWhileInside = 0;
            using var start = new Barrier(9);
            Thread[] threads = Enumerable.Range(0, 8).Select(_ => new Thread(() =>
            {
                start.SignalAndWait();
                while (gate.TryEnter(out OperationGate.Admission admission))
                {
                    for (int look = 0; look < 4; look++)
                    {
                        if (gate.WhenDrained.IsCompleted)
                        {
                            Interlocked.Increment(ref drainedWhileInside);
                        }

                        Thread.SpinWait(5);
                    }

                    gate.Exit(admission);
                }
            })).ToArray();
            Array.ForEach(threads, thread => thread.Start());

            start.SignalAndWait();
            Thread.SpinWait(2_000);
            Assert.True(gate.Close());
            await gate.WhenDrained.WaitAsync(TimeSpan.FromMinutes(1));
            Assert.All(threads, thread => Assert.True(thread.Join(TimeSpan.FromMinutes(1)), "a thread still crossed the gate a minute after it closed"));

            Assert.True(drainedWhileInside == 0, $"round {round}: an admitted operation saw the gate drained {drainedWhileInside} times");
        }
    }
}
