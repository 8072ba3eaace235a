using System;
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
        gate.Enter(this);
        gate.Enter(this);

        Assert.True(gate.Close());
        Assert.False(gate.WhenDrained.IsCompleted);
        gate.Exit();
        Assert.False(gate.WhenDrained.IsCompleted);
        gate.Exit();

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
}
