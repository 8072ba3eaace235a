using KeyValueStore.Compaction;

namespace KeyValueStore.Tests.Compaction;

/// <summary>When <see cref="LogDiskBudget"/> says compaction cannot make room, which refuses writes.</summary>
public class LogDiskBudgetRulesTests
{
    [Fact]
    public void NoBudget_HasRoomForAnyLog_AndIsNeverExhausted()
    {
        LogDiskBudget none = LogDiskBudget.None;

        none.RecordPassLeft(long.MaxValue - 1, wholeReadOnlyRegion: true);
        for (int step = 0; step < LogDiskBudget.MaxStepsWithoutPass; step++)
        {
            none.RecordStepWithoutPass();
        }

        Assert.False(none.IsSet);
        Assert.True(none.HasRoom(long.MaxValue - 1));
        Assert.False(none.IsExhausted);
    }

    [Fact]
    public void AWholePassThatLeftTheLogAtTheBudget_Exhausts_UntilADelete()
    {
        var budget = new LogDiskBudget(1_000);

        budget.RecordPassLeft(1_000, wholeReadOnlyRegion: true);
        Assert.True(budget.IsExhausted);
        Assert.True(budget.CannotMakeRoom);

        budget.NoteRecordDeleted();
        Assert.False(budget.CannotMakeRoom);
    }

    [Fact]
    public void APassThatLeftRoom_IsNotExhaustion_HoweverFullWritersMadeTheLogSince()
    {
        // The load test: waiting writers filled each slice's room at once, and a step judged by the log at its end
        // refused writes to a store whose live data took half its budget.
        var budget = new LogDiskBudget(1_000);
        budget.RecordPassLeft(1_000, wholeReadOnlyRegion: true);

        budget.RecordPassLeft(500, wholeReadOnlyRegion: true);

        Assert.False(budget.CannotMakeRoom);
        Assert.False(budget.HasRoom(1_000));
    }

    [Fact]
    public void APassThatDidNotReachTheWholeReadOnlyRegion_NeverExhausts()
    {
        var budget = new LogDiskBudget(1_000);

        budget.RecordPassLeft(2_000, wholeReadOnlyRegion: false);

        Assert.False(budget.CannotMakeRoom);
    }

    [Fact]
    public void StepsAskedForRoomThatRanNoPass_RefuseAfterTheLimit_AndAPassEndsThat()
    {
        var budget = new LogDiskBudget(1_000);
        for (int step = 1; step < LogDiskBudget.MaxStepsWithoutPass; step++)
        {
            budget.RecordStepWithoutPass();
            Assert.False(budget.CannotMakeRoom);
        }

        budget.RecordStepWithoutPass();
        Assert.True(budget.CannotMakeRoom);
        Assert.False(budget.IsExhausted);

        budget.RecordPassLeft(500, wholeReadOnlyRegion: false);
        Assert.False(budget.CannotMakeRoom);
    }
}
