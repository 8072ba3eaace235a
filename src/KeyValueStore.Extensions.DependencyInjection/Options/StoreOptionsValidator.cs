using KeyValueStore;
using Microsoft.Extensions.Options;

namespace KeyValueStore.Extensions.DependencyInjection.Options;

/// <summary>
/// Checks each registered store's options as opening it would (<see cref="MixedStorageKVStore.ValidateOptions"/>), so
/// that <c>ValidateOnStart</c> refuses a bad configuration when the host starts, listing every problem at once.
/// </summary>
internal sealed class StoreOptionsValidator : IValidateOptions<MixedStorageKVStoreOptions>
{
    public ValidateOptionsResult Validate(string? name, MixedStorageKVStoreOptions options)
    {
        try
        {
            MixedStorageKVStore.ValidateOptions(options);
            return ValidateOptionsResult.Success;
        }
        catch (InvalidStoreOptionsException e)
        {
            return ValidateOptionsResult.Fail(e.Problems);
        }
    }
}
