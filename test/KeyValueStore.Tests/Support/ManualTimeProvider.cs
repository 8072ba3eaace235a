using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;

namespace KeyValueStore.Tests.Support;

/// <summary>A clock that moves only when a test calls <see cref="Advance"/>, firing the timers that fall due.</summary>
internal sealed class ManualTimeProvider : TimeProvider
{
    private readonly List<ManualTimer> _timers = new();
    private DateTimeOffset _now = new(2026, 1, 1, 0, 0, 0, TimeSpan.Zero);

    public override DateTimeOffset GetUtcNow()
    {
        lock (_timers)
        {
            return _now;
        }
    }

    /// <summary>Gets a timestamp of this clock (ticks of its time), so that elapsed times measured with it move only with <see cref="Advance"/> too.</summary>
    public override long GetTimestamp() => GetUtcNow().UtcTicks;

    /// <inheritdoc/>
    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(this, callback, state);
        lock (_timers)
        {
            timer.Schedule(_now, dueTime, period);
            _timers.Add(timer);
        }

        return timer;
    }

    /// <summary>Gets how many timers exist and are not disposed.</summary>
    public int TimerCount
    {
        get
        {
            lock (_timers)
            {
                return _timers.Count;
            }
        }
    }

    /// <summary>Gets when the next timer falls due, or null when none is scheduled.</summary>
    public DateTimeOffset? NextDue
    {
        get
        {
            lock (_timers)
            {
                return _timers.Select(timer => timer.NextDue).Where(due => due is not null).Min();
            }
        }
    }

    /// <summary>
    /// Moves the clock and invokes, on the calling thread, each timer callback that fell due (a periodic timer once
    /// per period passed). Returns how many callbacks ran: a timer's callback runs here or not at all, so this is the
    /// one place a test can see, without waiting, that a timer did not fire.
    /// </summary>
    public int Advance(TimeSpan by)
    {
        var due = new List<ManualTimer>();
        lock (_timers)
        {
            _now += by;
            foreach (ManualTimer timer in _timers)
            {
                while (timer.TryFire(_now))
                {
                    due.Add(timer);
                }
            }
        }

        foreach (ManualTimer timer in due)
        {
            timer.Invoke();
        }

        return due.Count;
    }

    private void Remove(ManualTimer timer)
    {
        lock (_timers)
        {
            _timers.Remove(timer);
        }
    }

    private sealed class ManualTimer(ManualTimeProvider owner, TimerCallback callback, object? state) : ITimer
    {
        private DateTimeOffset? _nextDue;
        private TimeSpan _period;

        public DateTimeOffset? NextDue => _nextDue;

        public void Schedule(DateTimeOffset now, TimeSpan dueTime, TimeSpan period)
        {
            _nextDue = dueTime == Timeout.InfiniteTimeSpan ? null : now + dueTime;
            _period = period;
        }

        public bool TryFire(DateTimeOffset now)
        {
            if (_nextDue is not DateTimeOffset due || due > now)
            {
                return false;
            }

            _nextDue = _period == Timeout.InfiniteTimeSpan || _period == TimeSpan.Zero ? null : due + _period;
            return true;
        }

        public void Invoke() => callback(state);

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            // Under the owner's lock, as Advance reads the schedule under it from another thread.
            lock (owner._timers)
            {
                Schedule(owner._now, dueTime, period);
            }

            return true;
        }

        public void Dispose() => owner.Remove(this);

        public System.Threading.Tasks.ValueTask DisposeAsync()
        {
            Dispose();
            return default;
        }
    }
}
