using System;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;

namespace KeyValueStore.Tests.TypedStore;

/// <summary>A durable typed store reopened: every acknowledged value comes back, and other types are refused.</summary>
public class TypedDurabilityTests
{
    [Theory]
    [InlineData(DurabilityMode.Checkpoint)]
    [InlineData(DurabilityMode.Commit)]
    public async Task AReopenedStore_ReturnsEveryAcknowledgedValue_AndNoDeletedOne(DurabilityMode mode)
    {
        const int Records = 3_000;
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.Durable(temp.Path, mode);
        await using (var store = await MixedStorageKVStore<string, Customer>.OpenAsync(options))
        {
            for (int i = 0; i < Records; i++)
            {
                await store.UpsertAsync($"customer-{i}", Customer.Sample(i));
            }

            for (int i = 0; i < Records; i += 3)
            {
                Assert.Equal(KeyStatus.Found, await store.DeleteAsync($"customer-{i}"));
            }

            await store.UpsertAsync("customer-1", Customer.Sample(-1));
        }

        await using var reopened = await MixedStorageKVStore<string, Customer>.OpenAsync(options);
        for (int i = 0; i < Records; i++)
        {
            ReadResult<Customer> read = await reopened.ReadAsync($"customer-{i}");
            if (i % 3 == 0)
            {
                Assert.Equal(KeyStatus.NotFound, read.Status);
            }
            else
            {
                Assert.Equal(i == 1 ? Customer.Sample(-1) : Customer.Sample(i), read.Value);
            }
        }
    }

    [Fact]
    public async Task ACommitModeStore_AbandonedWithoutDispose_StillHasEveryAcknowledgedWrite_WhenTheFilesAreReopened()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.Durable(temp.Path, DurabilityMode.Commit);
        await using (var store = new MixedStorageKVStore<int, Reading>(options))
        {
            for (int i = 0; i < 500; i++)
            {
                await store.UpsertAsync(i, new Reading(1, 2, i, i));
            }

            // Every write acknowledged, no close-time checkpoint yet.
            CrashImage.Copy(temp.Path, temp.Path + "-crash");
        }

        var crashImage = TypedStores.Durable(temp.Path + "-crash", DurabilityMode.Commit);
        try
        {
            await using var reopened = new MixedStorageKVStore<int, Reading>(crashImage);
            for (int i = 0; i < 500; i++)
            {
                Assert.Equal(new Reading(1, 2, i, i), (await reopened.ReadAsync(i)).Value);
            }
        }
        finally
        {
            System.IO.Directory.Delete(crashImage.LogDirectory!, recursive: true);
        }
    }

    [Fact]
    public async Task Reopening_WithOtherTypes_ThrowsManifestMismatch_NamingBothTypePairs_AndLeavesTheStoreIntact()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.Durable(temp.Path, DurabilityMode.Checkpoint);
        await using (var store = new MixedStorageKVStore<string, Customer>(options))
        {
            await store.UpsertAsync("a", Customer.Sample(1));
        }

        var error = await Assert.ThrowsAsync<StoreManifestMismatchException>(async () => await MixedStorageKVStore<int, Customer>.OpenAsync(options));
        Assert.Contains("<System.String, KeyValueStore.Conformance.Customer>", error.Message, StringComparison.Ordinal);
        Assert.Contains("<System.Int32, KeyValueStore.Conformance.Customer>", error.Message, StringComparison.Ordinal);

        var valueError = Assert.Throws<StoreManifestMismatchException>(() => new MixedStorageKVStore<string, Label>(options));
        Assert.Contains("<System.String, KeyValueStore.Conformance.Label>", valueError.Message, StringComparison.Ordinal);

        await using var reopened = new MixedStorageKVStore<string, Customer>(options);
        Assert.Equal(Customer.Sample(1), (await reopened.ReadAsync("a")).Value);
    }

    [Fact]
    public async Task OpenAsync_WithACancelledToken_OpensNothing_AndLeavesTheFilesFree()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.Durable(temp.Path, DurabilityMode.Checkpoint);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await MixedStorageKVStore<int, int>.OpenAsync(options, cancellationToken: new System.Threading.CancellationToken(canceled: true)));

        await using var store = await MixedStorageKVStore<int, int>.OpenAsync(options);
        await store.UpsertAsync(1, 1);
        Assert.Equal(1, (await store.ReadAsync(1)).Value);
    }
}
