using System;
using KeyValueStore.Storage;

namespace KeyValueStore;

/// <summary>What applies to every <see cref="MixedStorageKVStore{TKey, TValue}"/> whatever its types.</summary>
public static class MixedStorageKVStore
{
    /// <summary>The name of the meter every store's instruments are on (docs/observability.md): <c>AddMeter(MixedStorageKVStore.MeterName)</c>.</summary>
    public const string MeterName = KeyValueStore.Diagnostics.OperationInstruments.MeterName;

    /// <summary>
    /// Checks <paramref name="options"/> as opening a store would, without touching the disk: for a host to refuse bad
    /// settings at startup, before any store is opened.
    /// </summary>
    /// <param name="options">The options to check.</param>
    /// <exception cref="InvalidStoreOptionsException">The options are invalid; <see cref="InvalidStoreOptionsException.Problems"/> lists every problem.</exception>
    public static void ValidateOptions(MixedStorageKVStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        StoreSettingsValidator.Validate(options);
    }
}
