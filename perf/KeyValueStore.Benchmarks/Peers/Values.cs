using System.Text;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.Benchmarks.Peers;

/// <summary>The values the peer benchmarks write: the same bytes under every key of a run.</summary>
internal static class Values
{
    /// <summary>Pseudo-random bytes: what LZ4 cannot shrink.</summary>
    public static byte[] Incompressible(int size)
    {
        byte[] value = new byte[size];
        var random = new SplitMix64(0x5EED);
        ulong word = 0;
        for (int i = 0; i < size; i++)
        {
            if (i % sizeof(ulong) == 0)
            {
                word = random.NextUInt64();
            }

            value[i] = (byte)(word >> (8 * (i % sizeof(ulong))));
        }

        return value;
    }

    /// <summary>
    /// Text like an application's JSON documents: one record shape repeated with varying numbers, so LZ4 finds long
    /// matches (it shrinks this to roughly a fifth).
    /// </summary>
    public static byte[] Compressible(int size)
    {
        var text = new StringBuilder(size + 128);
        var random = new SplitMix64(0xC0FFEE);
        int row = 0;
        while (text.Length < size)
        {
            text.Append("{\"id\":").Append(row++).Append(",\"name\":\"customer-").Append(random.NextBelow(10_000))
                .Append("\",\"country\":\"DE\",\"active\":true,\"balance\":").Append(random.NextBelow(1_000_000)).Append("},\n");
        }

        return Encoding.ASCII.GetBytes(text.ToString(0, size));
    }
}
