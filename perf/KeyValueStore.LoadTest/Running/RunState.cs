using System;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Verification;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Running;

/// <summary>What every worker of a run shares.</summary>
/// <param name="Options">The run's options.</param>
/// <param name="Backend">The store under test.</param>
/// <param name="Model">Versions issued and completed per record id.</param>
/// <param name="Keys">Which ids exist.</param>
/// <param name="Locks">Per-key write locks; only with --verify.</param>
/// <param name="Verifier">The read checker; only with --verify.</param>
/// <param name="Time">The clock of timestamps and the run's duration.</param>
internal sealed record RunState(
    LoadTestOptions Options,
    ILoadTestBackend Backend,
    ExpectedContents Model,
    KeySpace Keys,
    KeyLocks? Locks,
    ReadVerifier? Verifier,
    TimeProvider Time);
