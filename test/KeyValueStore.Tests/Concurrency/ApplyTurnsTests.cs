using System.Threading.Tasks;
using KeyValueStore.Concurrency;

namespace KeyValueStore.Tests.Concurrency;

/// <summary>Commit mode's apply order: per stripe, turns come in ticket order, whatever order the writers arrive in.</summary>
public class ApplyTurnsTests
{
    [Fact]
    public async Task Turns_ComeInTicketOrder_EvenWhenLaterTicketsAskFirst()
    {
        var turns = new ApplyTurns(stripeCount: 4);
        long first = turns.TakeTicket(2);
        long second = turns.TakeTicket(2);
        long third = turns.TakeTicket(2);

        ValueTask thirdTurn = turns.WaitForTurnAsync(2, third);
        ValueTask secondTurn = turns.WaitForTurnAsync(2, second);
        Assert.False(thirdTurn.IsCompleted);
        Assert.False(secondTurn.IsCompleted);
        Assert.True(turns.WaitForTurnAsync(2, first).IsCompleted);

        turns.EndTurn(2, first);
        await secondTurn;
        Assert.False(thirdTurn.IsCompleted);

        turns.EndTurn(2, second);
        await thirdTurn;
    }

    [Fact]
    public void Stripes_TakeTurnsIndependently()
    {
        var turns = new ApplyTurns(stripeCount: 4);
        long held = turns.TakeTicket(0);

        Assert.True(turns.WaitForTurnAsync(1, turns.TakeTicket(1)).IsCompleted);
        Assert.True(turns.WaitForTurnAsync(0, held).IsCompleted);
    }

    [Fact]
    public async Task WaitUntilApplied_CompletesOnceEveryTicketTakenSoFarHasEndedItsTurn()
    {
        var turns = new ApplyTurns(stripeCount: 1);
        Assert.True(turns.WaitUntilAppliedAsync(0).IsCompleted);
        long first = turns.TakeTicket(0);
        long second = turns.TakeTicket(0);

        ValueTask applied = turns.WaitUntilAppliedAsync(0);
        turns.EndTurn(0, first);
        Assert.False(applied.IsCompleted);

        turns.EndTurn(0, second);
        await applied;
        Assert.True(turns.WaitForTurnAsync(0, turns.TakeTicket(0)).IsCompleted);
    }
}
