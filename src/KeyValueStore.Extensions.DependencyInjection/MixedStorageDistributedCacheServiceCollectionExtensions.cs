using System;
using KeyValueStore;
using KeyValueStore.Extensions.DependencyInjection.Caching;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers a persistent local <see cref="IDistributedCache"/>: entries live in a
/// <see cref="MixedStorageKVStore{TKey, TValue}"/> of <c>string</c> to <c>byte[]</c>, each with its expiry, and in a
/// durable mode survive a restart, where <c>MemoryDistributedCache</c>'s do not.
/// </summary>
/// <remarks>
/// The cache's store is registered as any other (<see cref="MixedStorageKVStoreServiceCollectionExtensions"/>), under
/// the key <see cref="StoreKey"/>: opened while the host starts, closed while it stops, its options validated on start.
/// Expiry is measured on the registered <see cref="TimeProvider"/>, or the system clock when none is registered.
/// The cache replaces any <see cref="IDistributedCache"/> registered before it. An expired entry is deleted when a read
/// finds it, and otherwise dropped by the store's compaction when it reaches the entry's record
/// (<see cref="MixedStorageKVStore{TKey, TValue}.OpenAsync"/>'s filter), so entries set once and never read again do
/// not hold disk after they expire.
/// </remarks>
public static class MixedStorageDistributedCacheServiceCollectionExtensions
{
    /// <summary>The service key of the cache's store, and the name of its options.</summary>
    public const string StoreKey = "MixedStorageDistributedCache";

    /// <summary>Registers the cache, its store configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the store's options: <see cref="MixedStorageKVStoreOptions.Durability"/> and <see cref="MixedStorageKVStoreOptions.DeleteLogOnClose"/> decide whether entries outlive the process.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">The cache is already registered.</exception>
    public static IServiceCollection AddMixedStorageDistributedCache(this IServiceCollection services, Action<MixedStorageKVStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        return AddCache(services, builder => builder.Configure(configure));
    }

    /// <summary>Registers the cache, its store's options bound from configuration.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section holding the store's options, named as the properties of <see cref="MixedStorageKVStoreOptions"/>.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">The cache is already registered.</exception>
    public static IServiceCollection AddMixedStorageDistributedCache(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        return AddCache(services, builder => builder.Bind(configuration));
    }

    /// <summary>
    /// The cache's store, whose compaction drops entries that have expired (they are never read again to be deleted),
    /// and the cache over it.
    /// </summary>
    private static IServiceCollection AddCache(IServiceCollection services, Action<OptionsBuilder<MixedStorageKVStoreOptions>> configure)
    {
        MixedStorageKVStoreServiceCollectionExtensions.AddStore<string, byte[]>(
            services, StoreKey, StoreKey, configure, provider => CacheEntry.HasExpiredOn(TimeOf(provider)));
        return services.AddSingleton<IDistributedCache>(provider => new MixedStorageDistributedCache(
            provider.GetRequiredKeyedService<IMixedStorageKVStore<string, byte[]>>(StoreKey),
            TimeOf(provider)));
    }

    private static TimeProvider TimeOf(IServiceProvider provider) => provider.GetService<TimeProvider>() ?? TimeProvider.System;
}
