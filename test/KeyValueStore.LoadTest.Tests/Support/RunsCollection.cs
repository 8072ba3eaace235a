namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>
/// Test classes that run whole load tests share this collection, so their runs take turns: each run
/// starts several workers and a real store, and a two-core machine running several at once gains nothing.
/// </summary>
[CollectionDefinition(Name)]
public sealed class RunsCollection
{
    public const string Name = "Whole load-test runs";
}
