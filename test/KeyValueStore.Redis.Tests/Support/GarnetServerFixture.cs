using System;

namespace KeyValueStore.Redis.Tests.Support;

/// <summary>One Garnet server shared by the tests of a collection; each test writes under a key prefix of its own.</summary>
public sealed class GarnetServerFixture : IDisposable
{
    public GarnetProcess Server { get; } = new();

    /// <summary>Options for a store on this server under a fresh prefix, so tests sharing the server never see each other's keys.</summary>
    public RedisKVStoreOptions StoreOptions() => new()
    {
        Configuration = Server.Configuration,
        KeyPrefix = $"test-{Guid.NewGuid():N}:",
    };

    public void Dispose() => Server.Dispose();
}

/// <summary>The collection of tests that share one <see cref="GarnetServerFixture"/>.</summary>
[CollectionDefinition(Name)]
public sealed class GarnetCollection : ICollectionFixture<GarnetServerFixture>
{
    public const string Name = "Garnet server";
}
