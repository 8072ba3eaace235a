namespace KeyValueStore.LoadTest;

/// <summary>The process exit codes, as the usage text documents them.</summary>
internal static class ExitCodes
{
    /// <summary>The run finished; with --verify, every read matched the model.</summary>
    public const int Ok = 0;

    /// <summary>--verify found reads that did not match the model.</summary>
    public const int VerifyMismatches = 1;

    /// <summary>Bad input: the message and the usage were printed to stderr; nothing ran.</summary>
    public const int BadInput = 2;

    /// <summary>The backend failed during the run (an exception, printed to stderr).</summary>
    public const int RunFailed = 3;

    /// <summary>The run allocated more per operation than --max-allocated-per-op allows (the message on stderr).</summary>
    public const int AllocationOverLimit = 4;
}
