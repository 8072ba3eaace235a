using System;
using System.Diagnostics.Metrics;
using System.Linq;
using KeyValueStore;
using KeyValueStore.Redis;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using StackExchange.Redis;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers <see cref="RedisKVStore{TKey, TValue}"/> stores in a service collection as <see cref="IMixedStorageKVStore{TKey, TValue}"/>:
/// a service that used <c>AddMixedStorageKVStore</c> moves to a shared server by changing that one line.
/// </summary>
/// <remarks>
/// The store is a singleton made on first resolution. It uses the <see cref="IConnectionMultiplexer"/> registered in the
/// container when there is one (which the application owns), else it connects with <see cref="RedisKVStoreOptions.Configuration"/>
/// and closes that connection when the container is disposed. Its metrics go through the host's <see cref="IMeterFactory"/>
/// unless the options name one. Invalid options throw <see cref="InvalidStoreOptionsException"/>
/// on that first resolution, every problem listed.
/// </remarks>
public static class RedisKVStoreServiceCollectionExtensions
{
    /// <summary>Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/> over Redis or Garnet, configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the store's options.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered without a key.</exception>
    public static IServiceCollection AddRedisKVStore<TKey, TValue>(this IServiceCollection services, Action<RedisKVStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        return AddStore<TKey, TValue>(services, serviceKey: null, builder => builder.Configure(configure));
    }

    /// <summary>Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/> over Redis or Garnet, its options bound from configuration.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section holding the options, named as the properties of <see cref="RedisKVStoreOptions"/>.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered without a key.</exception>
    public static IServiceCollection AddRedisKVStore<TKey, TValue>(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        return AddStore<TKey, TValue>(services, serviceKey: null, builder => builder.Bind(configuration));
    }

    /// <summary>Registers a store over Redis or Garnet under <paramref name="serviceKey"/>, configured in code (<c>[FromKeyedServices(key)]</c>).</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The store's key; also the name of its options.</param>
    /// <param name="configure">Sets the store's options.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered under <paramref name="serviceKey"/>.</exception>
    public static IServiceCollection AddKeyedRedisKVStore<TKey, TValue>(this IServiceCollection services, string serviceKey, Action<RedisKVStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrEmpty(serviceKey);
        ArgumentNullException.ThrowIfNull(configure);
        return AddStore<TKey, TValue>(services, serviceKey, builder => builder.Configure(configure));
    }

    private static IServiceCollection AddStore<TKey, TValue>(IServiceCollection services, string? serviceKey, Action<OptionsBuilder<RedisKVStoreOptions>> configure)
    {
        string optionsName = $"{typeof(RedisKVStore<TKey, TValue>).FullName}:{serviceKey}";
        if (services.Any(descriptor => descriptor.ServiceType == typeof(RedisKVStore<TKey, TValue>) && Equals(descriptor.ServiceKey, serviceKey)))
        {
            throw new ArgumentException(
                $"A store of {typeof(TKey).Name} to {typeof(TValue).Name} is already registered{(serviceKey is null ? " without a key" : $" under the key \"{serviceKey}\"")}: register each store once, or give each its own key.",
                nameof(services));
        }

        OptionsBuilder<RedisKVStoreOptions> options = services.AddOptions<RedisKVStoreOptions>(optionsName);
        configure(options);

        // The host's meter factory, unless the options name one: the store's metrics then reach the host's pipeline.
        options.PostConfigure<IServiceProvider>((store, provider) => store.MeterFactory ??= provider.GetService<IMeterFactory>());
        services.AddKeyedSingleton(serviceKey, (provider, _) => Create<TKey, TValue>(provider, provider.GetRequiredService<IOptionsMonitor<RedisKVStoreOptions>>().Get(optionsName)));
        services.AddKeyedSingleton<IMixedStorageKVStore<TKey, TValue>>(serviceKey, (provider, key) => provider.GetRequiredKeyedService<RedisKVStore<TKey, TValue>>(key));
        return services;
    }

    private static RedisKVStore<TKey, TValue> Create<TKey, TValue>(IServiceProvider provider, RedisKVStoreOptions options)
    {
        if (provider.GetService<IConnectionMultiplexer>() is { } shared)
        {
            return new RedisKVStore<TKey, TValue>(shared, options);
        }

        // The container's factories are synchronous; connecting here blocks only the first resolution.
        return RedisKVStore<TKey, TValue>.ConnectAsync(options).GetAwaiter().GetResult();
    }

}
