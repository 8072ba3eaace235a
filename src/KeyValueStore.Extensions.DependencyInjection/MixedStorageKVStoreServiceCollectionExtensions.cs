using System;
using System.Diagnostics.Metrics;
using System.Linq;
using KeyValueStore;
using KeyValueStore.Extensions.DependencyInjection.Hosting;
using KeyValueStore.Extensions.DependencyInjection.Options;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>
/// Registers <see cref="MixedStorageKVStore{TKey, TValue}"/> stores in a service collection: one line per store, options
/// from code or from configuration, checked when the host starts, the store opened while the host starts and closed
/// (checkpointed, in a durable mode) while it stops.
/// </summary>
/// <remarks>
/// Each registration adds the store as a singleton <see cref="IMixedStorageKVStore{TKey, TValue}"/> and
/// <see cref="MixedStorageKVStore{TKey, TValue}"/> (keyed, for the keyed overloads), a hosted service that opens and
/// closes it, and named <see cref="MixedStorageKVStoreOptions"/> validated on start: a host whose options are invalid
/// fails to start with an <see cref="OptionsValidationException"/> listing every problem. The store logs through the
/// host's <see cref="ILogger{TCategoryName}"/>, and its metrics go through the host's <see cref="IMeterFactory"/> when
/// one is registered. A store resolved where no host runs is opened on first resolution and
/// closed when the service provider is disposed.
/// </remarks>
public static class MixedStorageKVStoreServiceCollectionExtensions
{
    /// <summary>Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/>, configured in code.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">Sets the store's options.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered without a key.</exception>
    public static IServiceCollection AddMixedStorageKVStore<TKey, TValue>(this IServiceCollection services, Action<MixedStorageKVStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        return AddStore<TKey, TValue>(services, serviceKey: null, OptionsNameOf<TKey, TValue>(serviceKey: null), builder => builder.Configure(configure), dropOnCompaction: null);
    }

    /// <summary>Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/>, its options bound from configuration.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The configuration section holding the options, named as the properties of <see cref="MixedStorageKVStoreOptions"/>.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered without a key.</exception>
    public static IServiceCollection AddMixedStorageKVStore<TKey, TValue>(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        return AddStore<TKey, TValue>(services, serviceKey: null, OptionsNameOf<TKey, TValue>(serviceKey: null), builder => builder.Bind(configuration), dropOnCompaction: null);
    }

    /// <summary>
    /// Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/> under <paramref name="serviceKey"/>,
    /// configured in code: a service holds several stores by resolving each by its key (<c>[FromKeyedServices(key)]</c>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The store's key; also the name of its options.</param>
    /// <param name="configure">Sets the store's options.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered under <paramref name="serviceKey"/>, or the key is empty.</exception>
    public static IServiceCollection AddKeyedMixedStorageKVStore<TKey, TValue>(this IServiceCollection services, string serviceKey, Action<MixedStorageKVStoreOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrEmpty(serviceKey);
        ArgumentNullException.ThrowIfNull(configure);
        return AddStore<TKey, TValue>(services, serviceKey, OptionsNameOf<TKey, TValue>(serviceKey), builder => builder.Configure(configure), dropOnCompaction: null);
    }

    /// <summary>Registers a store of <typeparamref name="TKey"/> to <typeparamref name="TValue"/> under <paramref name="serviceKey"/>, its options bound from configuration.</summary>
    /// <param name="services">The service collection.</param>
    /// <param name="serviceKey">The store's key; also the name of its options.</param>
    /// <param name="configuration">The configuration section holding the options, named as the properties of <see cref="MixedStorageKVStoreOptions"/>.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentException">A store of these types is already registered under <paramref name="serviceKey"/>, or the key is empty.</exception>
    public static IServiceCollection AddKeyedMixedStorageKVStore<TKey, TValue>(this IServiceCollection services, string serviceKey, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentException.ThrowIfNullOrEmpty(serviceKey);
        ArgumentNullException.ThrowIfNull(configuration);
        return AddStore<TKey, TValue>(services, serviceKey, OptionsNameOf<TKey, TValue>(serviceKey), builder => builder.Bind(configuration), dropOnCompaction: null);
    }

    /// <summary>
    /// The name of a store's options: its key, or for a store without one a name made of its types, so that stores of
    /// other types registered in the same collection never share options.
    /// </summary>
    internal static string OptionsNameOf<TKey, TValue>(string? serviceKey) =>
        serviceKey ?? $"MixedStorageKVStore<{typeof(TKey).FullName}, {typeof(TValue).FullName}>";

    /// <summary>Registers a store, its lifetime and its options; <paramref name="dropOnCompaction"/> makes its compaction filter from the services, if given.</summary>
    internal static IServiceCollection AddStore<TKey, TValue>(
        IServiceCollection services,
        string? serviceKey,
        string optionsName,
        Action<OptionsBuilder<MixedStorageKVStoreOptions>> configure,
        Func<IServiceProvider, Func<TValue, bool>>? dropOnCompaction)
    {
        // The lifetime is keyed by the options' name, which is unique per store of these types.
        if (services.Any(descriptor => descriptor.ServiceType == typeof(StoreLifetime<TKey, TValue>) && Equals(descriptor.ServiceKey, optionsName)))
        {
            throw new ArgumentException(
                serviceKey is null
                    ? $"A MixedStorageKVStore<{typeof(TKey).Name}, {typeof(TValue).Name}> is already registered without a key. Register each further store of these types with AddKeyedMixedStorageKVStore and a key of its own."
                    : $"A MixedStorageKVStore<{typeof(TKey).Name}, {typeof(TValue).Name}> is already registered under the key '{serviceKey}'. Give each store a key of its own.",
                nameof(serviceKey));
        }

        OptionsBuilder<MixedStorageKVStoreOptions> options = services.AddOptions<MixedStorageKVStoreOptions>(optionsName);
        configure(options);

        // The host's meter factory, unless the options name one: the store's metrics then reach the host's pipeline.
        options.PostConfigure<IServiceProvider>((store, provider) => store.MeterFactory ??= provider.GetService<IMeterFactory>());
        options.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<MixedStorageKVStoreOptions>, StoreOptionsValidator>());

        services.AddKeyedSingleton(optionsName, (provider, _) => new StoreLifetime<TKey, TValue>(
            optionsName,
            provider.GetRequiredService<IOptionsMonitor<MixedStorageKVStoreOptions>>(),
            provider.GetService<ILogger<MixedStorageKVStore<TKey, TValue>>>(),
            dropOnCompaction?.Invoke(provider)));
        services.AddSingleton<IHostedService>(provider => provider.GetRequiredKeyedService<StoreLifetime<TKey, TValue>>(optionsName));

        // The store's own disposal is idempotent: the container disposes it too, after the lifetime has.
        if (serviceKey is null)
        {
            services.AddSingleton(provider => provider.GetRequiredKeyedService<StoreLifetime<TKey, TValue>>(optionsName).Store);
            services.AddSingleton<IMixedStorageKVStore<TKey, TValue>>(provider => provider.GetRequiredService<MixedStorageKVStore<TKey, TValue>>());
        }
        else
        {
            services.AddKeyedSingleton(serviceKey, (provider, _) => provider.GetRequiredKeyedService<StoreLifetime<TKey, TValue>>(optionsName).Store);
            services.AddKeyedSingleton<IMixedStorageKVStore<TKey, TValue>>(serviceKey, (provider, key) => provider.GetRequiredKeyedService<MixedStorageKVStore<TKey, TValue>>(key));
        }

        return services;
    }
}
