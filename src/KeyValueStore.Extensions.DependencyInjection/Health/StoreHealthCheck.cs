using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace KeyValueStore.Extensions.DependencyInjection.Health;

/// <summary>
/// A store's health: unhealthy when its disk has failed (it refuses every operation until reopened) or it is closed;
/// degraded when its files pass <see cref="StoreHealthBounds.DegradedDiskPerLive"/> times the live data, or when
/// compaction held writers back for more than <see cref="StoreHealthBounds.DegradedBackPressureShare"/> of the time
/// since the previous check; healthy otherwise. The figures go in the result's data.
/// </summary>
internal sealed class StoreHealthCheck : IHealthCheck
{
    private readonly Func<StoreStatus> _status;
    private readonly StoreHealthBounds _bounds;
    private readonly TimeProvider _time;
    private readonly object _previousLock = new();
    private (long At, TimeSpan BackPressure)? _previous;

    /// <param name="status">Reads the store's status; throws <see cref="ObjectDisposedException"/> once it is closed.</param>
    /// <param name="bounds">Where healthy ends.</param>
    /// <param name="time">The clock the back-pressure share is measured on.</param>
    public StoreHealthCheck(Func<StoreStatus> status, StoreHealthBounds bounds, TimeProvider time)
    {
        _status = status;
        _bounds = bounds;
        _time = time;
    }

    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        StoreStatus status;
        try
        {
            status = _status();
        }
        catch (ObjectDisposedException)
        {
            return Task.FromResult(new HealthCheckResult(context.Registration.FailureStatus, "The store is closed."));
        }

        var data = new Dictionary<string, object>
        {
            ["logBytes"] = status.LogBytes,
            ["diskBytes"] = status.DiskBytes,
            ["backPressureSeconds"] = status.BackPressure.TotalSeconds,
        };
        if (status.LiveBytes is { } live)
        {
            data["liveBytes"] = live;
        }

        if (status.IsFaulted)
        {
            return Task.FromResult(new HealthCheckResult(context.Registration.FailureStatus, $"The store's disk failed; it refuses every operation until it is reopened. {status.Fault}", data: data));
        }

        double? backPressureShare = BackPressureShareSincePreviousCheck(status.BackPressure);
        if (backPressureShare is { } share)
        {
            data["backPressureShare"] = share;
        }

        if (status.DiskPerLive is { } ratio)
        {
            data["diskPerLive"] = ratio;
            if (ratio > _bounds.DegradedDiskPerLive)
            {
                return Task.FromResult(HealthCheckResult.Degraded($"The store's files are {ratio:F2} times its live data, over {_bounds.DegradedDiskPerLive}: compaction is behind the writers.", data: data));
            }
        }

        if (backPressureShare > _bounds.DegradedBackPressureShare)
        {
            return Task.FromResult(HealthCheckResult.Degraded($"Compaction held writers back {backPressureShare:P0} of the time since the last check, over {_bounds.DegradedBackPressureShare:P0}.", data: data));
        }

        return Task.FromResult(HealthCheckResult.Healthy(data: data));
    }

    /// <summary>The share of the time since the previous check that writers were held back; null at the first check.</summary>
    private double? BackPressureShareSincePreviousCheck(TimeSpan backPressure)
    {
        long now = _time.GetTimestamp();
        lock (_previousLock)
        {
            (long At, TimeSpan BackPressure)? previous = _previous;
            _previous = (now, backPressure);
            if (previous is not { } before)
            {
                return null;
            }

            TimeSpan elapsed = _time.GetElapsedTime(before.At, now);
            return elapsed > TimeSpan.Zero ? Math.Clamp((backPressure - before.BackPressure) / elapsed, 0, 1) : null;
        }
    }
}
