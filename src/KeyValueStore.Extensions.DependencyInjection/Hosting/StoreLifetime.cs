using System;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace KeyValueStore.Extensions.DependencyInjection.Hosting;

/// <summary>
/// Owns one registered store from its open to its close: opens it while the host starts (recovery runs then, not on
/// the first request) and disposes it while the host stops, which in a durable mode takes the last checkpoint.
/// </summary>
/// <remarks>
/// A store resolved before the host has started (a container used without a host, or a hosted service registered
/// earlier that asks for it) is opened then, and the resolving thread waits for it, as the store's own constructor does.
/// The open runs once, without the host's cancellation: a start that is cancelled stops waiting, and the open
/// either finishes for the next caller or is disposed at stop.
/// </remarks>
/// <typeparam name="TKey">The store's key type.</typeparam>
/// <typeparam name="TValue">The store's value type.</typeparam>
internal sealed class StoreLifetime<TKey, TValue> : IHostedService, IAsyncDisposable, IDisposable
{
    private readonly object _openLock = new();
    private readonly string _name;
    private readonly IOptionsMonitor<MixedStorageKVStoreOptions> _options;
    private readonly ILogger<MixedStorageKVStore<TKey, TValue>>? _logger;
    private readonly Func<TValue, bool>? _dropOnCompaction;
    private Task<MixedStorageKVStore<TKey, TValue>>? _opening;
    private bool _disposed;

    /// <param name="name">The name of the store's options.</param>
    /// <param name="options">The registered options, by name.</param>
    /// <param name="logger">The host's logger for the store; none when the host has no logging.</param>
    /// <param name="dropOnCompaction">The store's compaction filter (<see cref="MixedStorageKVStore{TKey, TValue}.OpenAsync"/>), or null.</param>
    public StoreLifetime(string name, IOptionsMonitor<MixedStorageKVStoreOptions> options, ILogger<MixedStorageKVStore<TKey, TValue>>? logger, Func<TValue, bool>? dropOnCompaction)
    {
        _dropOnCompaction = dropOnCompaction;
        _name = name;
        _options = options;
        _logger = logger;
    }

    /// <summary>Gets the open store, opening it first if the host has not started it yet.</summary>
    /// <exception cref="ObjectDisposedException">The host has stopped and the store is closed.</exception>
    public MixedStorageKVStore<TKey, TValue> Store => OpenOnce().GetAwaiter().GetResult();

    /// <summary>Opens the store as the host starts.</summary>
    public Task StartAsync(CancellationToken cancellationToken) => OpenOnce().WaitAsync(cancellationToken);

    /// <summary>Closes the store as the host stops: in a durable mode, everything written is checkpointed.</summary>
    /// <remarks>
    /// Waits for the close whatever <paramref name="cancellationToken"/> says: a host that stopped waiting at its
    /// shutdown timeout would let the process end in the middle of the last checkpoint, and in Checkpoint mode lose the
    /// writes since the one before. A close does not hang on a failed disk (the store's fault ends its waits).
    /// </remarks>
    public Task StopAsync(CancellationToken cancellationToken) => DisposeAsync().AsTask();

    /// <summary>Closes the store, if it was opened. Idempotent.</summary>
    public async ValueTask DisposeAsync()
    {
        Task<MixedStorageKVStore<TKey, TValue>>? opening;
        lock (_openLock)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            opening = _opening;
        }

        if (opening is null)
        {
            return;
        }

        MixedStorageKVStore<TKey, TValue> store;
        try
        {
            store = await opening.ConfigureAwait(false);
        }
        catch (Exception e) when (e is KeyValueStoreException or OperationCanceledException or OptionsValidationException)
        {
            // The open failed and was reported to whoever waited for it; there is nothing to close.
            return;
        }

        await store.DisposeAsync().ConfigureAwait(false);
    }

    public void Dispose() => DisposeAsync().AsTask().GetAwaiter().GetResult();

    private Task<MixedStorageKVStore<TKey, TValue>> OpenOnce()
    {
        lock (_openLock)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            return _opening ??= OpenAsync();
        }
    }

    private async Task<MixedStorageKVStore<TKey, TValue>> OpenAsync()
    {
        // Off the caller's thread at once: the options' validation and the files' checks run synchronously at the start.
        await Task.Yield();
        MixedStorageKVStoreOptions options = _options.Get(_name);
        return await MixedStorageKVStore<TKey, TValue>.OpenAsync(options, _logger, _dropOnCompaction, CancellationToken.None).ConfigureAwait(false);
    }
}
