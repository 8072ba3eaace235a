using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Tests.Support;

/// <summary>Load-test records as the workloads write them, for tests that drive a backend by hand.</summary>
internal static class Records
{
    /// <summary>A load-test key: the record id as 8 big-endian bytes, which every backend, the typed ones too, takes.</summary>
    public static byte[] Key(long id)
    {
        var key = new byte[RecordCodec.KeySize];
        RecordCodec.WriteKey(key, id);
        return key;
    }

    /// <summary>A load-test value of <paramref name="size"/> bytes: the id, the version and filler the verifier checks.</summary>
    public static byte[] Value(long id, long version, int size)
    {
        var value = new byte[size];
        RecordCodec.WriteValue(value, id, version);
        return value;
    }
}
