using System;
using System.Buffers;
using System.Collections.Generic;

namespace KeyValueStore.Durability;

/// <summary>Puts transactions back together from the log's entries, in log order, during replay.</summary>
internal sealed class WalTransactionAssembler
{
    private readonly Dictionary<long, ArrayBufferWriter<byte>> _open = [];

    /// <summary>Gets how many transactions have a first piece but no last piece yet.</summary>
    public int IncompleteCount => _open.Count;

    /// <summary>
    /// Adds the entry at <paramref name="address"/>, whose header (<see cref="WalFragment.ReadHeader"/>) gave
    /// <paramref name="kind"/> and <paramref name="firstAddress"/>; returns the transaction it completes, if any.
    /// </summary>
    /// <remarks>
    /// A transaction in one entry (nearly all of them) is returned as <paramref name="payload"/> itself, not a copy: use
    /// it before reusing the entry's buffer.
    /// </remarks>
    /// <exception cref="FormatException">The entry continues a transaction that never began.</exception>
    public bool TryAdd(long address, WalFragmentKind kind, long firstAddress, ReadOnlyMemory<byte> payload, out ReadOnlyMemory<byte> transaction)
    {
        transaction = default;
        switch (kind)
        {
            case WalFragmentKind.Whole:
                transaction = payload;
                return true;
            case WalFragmentKind.First:
                var pieces = new ArrayBufferWriter<byte>(payload.Length * 2);
                pieces.Write(payload.Span);
                _open.Add(address, pieces);
                return false;
            default:
                if (!_open.TryGetValue(firstAddress, out ArrayBufferWriter<byte>? started))
                {
                    throw new FormatException($"the entry continues a transaction at address {firstAddress}, which has no first piece");
                }

                started.Write(payload.Span);
                if (kind == WalFragmentKind.Middle)
                {
                    return false;
                }

                _open.Remove(firstAddress);
                transaction = started.WrittenMemory;
                return true;
        }
    }
}
