using System;
using System.Threading.Tasks;
using KeyValueStore.Extensions.DependencyInjection.Health;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Health;

/// <summary>
/// The store's health check: its rules on given statuses (a faulted disk, files far over the live data, writers held
/// back), and on a real store in a host, healthy while open and unhealthy once closed.
/// </summary>
public class StoreHealthCheckTests
{
    private static readonly StoreStatus Steady = new(false, null, 100 << 20, 128 << 20, 50 << 20, TimeSpan.Zero);

    [Fact]
    public async Task AStoreWhoseDiskFailed_IsUnhealthy_SayingWhatFailed()
    {
        HealthCheckResult result = await CheckAsync(Steady with { IsFaulted = true, Fault = "A write to segment 3 failed: no space left." });

        Assert.Equal(HealthStatus.Unhealthy, result.Status);
        Assert.Contains("no space left", result.Description, StringComparison.Ordinal);
    }

    [Fact]
    public async Task FilesOverTheBoundTimesTheLiveData_AreDegraded_AndUnderItHealthy()
    {
        HealthCheckResult over = await CheckAsync(Steady with { DiskBytes = 201 << 20 });
        HealthCheckResult under = await CheckAsync(Steady with { DiskBytes = 199 << 20 });

        Assert.Equal(HealthStatus.Degraded, over.Status);
        Assert.Equal(4.02, (double)over.Data["diskPerLive"], 2);
        Assert.Equal(HealthStatus.Healthy, under.Status);
    }

    [Fact]
    public async Task WritersHeldBackForMostOfTheTimeSinceTheLastCheck_AreDegraded()
    {
        var time = new FakeTimeProvider();
        StoreStatus status = Steady;
        var check = new StoreHealthCheck(() => status, new StoreHealthBounds(), time);

        Assert.Equal(HealthStatus.Healthy, (await check.CheckHealthAsync(Context(check))).Status);
        time.Advance(TimeSpan.FromSeconds(10));
        status = Steady with { BackPressure = TimeSpan.FromSeconds(4) };
        Assert.Equal(HealthStatus.Healthy, (await check.CheckHealthAsync(Context(check))).Status);
        time.Advance(TimeSpan.FromSeconds(10));
        status = Steady with { BackPressure = TimeSpan.FromSeconds(10) };
        HealthCheckResult held = await check.CheckHealthAsync(Context(check));

        Assert.Equal(HealthStatus.Degraded, held.Status);
        Assert.Equal(0.6, (double)held.Data["backPressureShare"], 2);
    }

    [Fact]
    public async Task ARegisteredStore_IsHealthyWhileOpen_AndUnhealthyOnceClosed()
    {
        using var temp = new TempDirectory();
        using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services =>
        {
            services.AddKeyedMixedStorageKVStore<string, int>("orders", options => TestHosts.Durable(options, temp.Path));
            services.AddHealthChecks().AddMixedStorageKVStore<string, int>("orders");
        });
        await host.StartAsync();
        var health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport open = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Healthy, open.Entries["kvstore-orders"].Status);
        Assert.True((long)open.Entries["kvstore-orders"].Data["diskBytes"] > 0);

        await host.StopAsync();
        HealthReport closed = await health.CheckHealthAsync();
        Assert.Equal(HealthStatus.Unhealthy, closed.Entries["kvstore-orders"].Status);
    }

    /// <summary>
    /// The framework asks a registration's factory for its check at every run: a check made anew each time forgot the
    /// previous run's back-pressure, and the back-pressure rule never judged anything in a host.
    /// </summary>
    [Fact]
    public async Task ARegisteredCheck_IsOneInstanceAcrossRuns_SoTheBackPressureShareHasAPreviousRunToCompareWith()
    {
        using var temp = new TempDirectory();
        using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services =>
        {
            services.AddMixedStorageKVStore<string, int>(options => TestHosts.Durable(options, temp.Path));
            services.AddHealthChecks().AddMixedStorageKVStore<string, int>();
        });
        await host.StartAsync();
        HealthCheckRegistration registration = Assert.Single(host.Services.GetRequiredService<Microsoft.Extensions.Options.IOptions<HealthCheckServiceOptions>>().Value.Registrations);

        Assert.Same(registration.Factory(host.Services), registration.Factory(host.Services));
        var health = host.Services.GetRequiredService<HealthCheckService>();
        await health.CheckHealthAsync();
        HealthReport second = await health.CheckHealthAsync();
        Assert.True(second.Entries["kvstore"].Data.ContainsKey("backPressureShare"), "the second run had no share of back-pressure since the first");
        await host.StopAsync();
    }

    private static Task<HealthCheckResult> CheckAsync(StoreStatus status)
    {
        var check = new StoreHealthCheck(() => status, new StoreHealthBounds(), new FakeTimeProvider());
        return check.CheckHealthAsync(Context(check));
    }

    private static HealthCheckContext Context(IHealthCheck check) =>
        new() { Registration = new HealthCheckRegistration("kvstore", check, HealthStatus.Unhealthy, tags: null) };
}
