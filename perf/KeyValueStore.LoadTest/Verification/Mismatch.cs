using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Verification;

/// <summary>
/// A read that contradicted the model: which key, which versions were acceptable
/// (<see cref="ExpectedLowest"/> .. <see cref="ExpectedHighest"/>, 0 meaning "not found"), and what came back.
/// </summary>
internal sealed record Mismatch(string Phase, OperationType Operation, long KeyId, long ExpectedLowest, long ExpectedHighest, string Observed);
