using System;
using System.Collections.Generic;
using KeyValueStore;
using KeyValueStore.Extensions.DependencyInjection.Health;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Adds a registered store's health check (<c>services.AddHealthChecks().AddMixedStorageKVStore&lt;TKey, TValue&gt;()</c>).</summary>
public static class MixedStorageKVStoreHealthChecksBuilderExtensions
{
    /// <summary>
    /// Checks a store registered with <see cref="MixedStorageKVStoreServiceCollectionExtensions"/>: unhealthy (the
    /// registration's failure status) when its disk failed or it is closed; degraded when its files pass a multiple of
    /// its live data or compaction holds writers back for too much of the time; healthy otherwise.
    /// </summary>
    /// <param name="builder">The health checks builder.</param>
    /// <param name="serviceKey">The store's key, for a store registered with a key; null for one without.</param>
    /// <param name="name">The check's name; by default <c>kvstore</c>, or <c>kvstore-</c> and the key.</param>
    /// <param name="bounds">Where healthy ends; the defaults of <see cref="StoreHealthBounds"/> when null.</param>
    /// <param name="tags">Tags to filter checks by (a readiness probe's, say).</param>
    /// <returns><paramref name="builder"/>, for chaining.</returns>
    public static IHealthChecksBuilder AddMixedStorageKVStore<TKey, TValue>(
        this IHealthChecksBuilder builder,
        string? serviceKey = null,
        string? name = null,
        StoreHealthBounds? bounds = null,
        IEnumerable<string>? tags = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        StoreHealthBounds limits = bounds ?? new StoreHealthBounds();
        string checkName = name ?? (serviceKey is null ? "kvstore" : "kvstore-" + serviceKey);

        // One check for the registration's whole life, built from the root provider: the framework asks the factory
        // below at every run, and the back-pressure rule compares each run with the one before.
        builder.Services.AddKeyedSingleton(checkName, (provider, _) => new StoreHealthCheck(
            () => (serviceKey is null
                ? provider.GetRequiredService<MixedStorageKVStore<TKey, TValue>>()
                : provider.GetRequiredKeyedService<MixedStorageKVStore<TKey, TValue>>(serviceKey)).GetStatus(),
            limits,
            provider.GetService<TimeProvider>() ?? TimeProvider.System));
        return builder.Add(new HealthCheckRegistration(
            checkName,
            provider => provider.GetRequiredKeyedService<StoreHealthCheck>(checkName),
            HealthStatus.Unhealthy,
            tags));
    }
}
