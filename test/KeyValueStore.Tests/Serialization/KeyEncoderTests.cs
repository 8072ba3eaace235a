using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using KeyValueStore.Serialization;
using KeyValueStore.Tests.Support;
using KeyValueStore.Tests.TypedStore;
using MessagePack;

namespace KeyValueStore.Tests.Serialization;

/// <summary>Keys are canonical MessagePack bytes, never compressed, whatever the user's options ask for.</summary>
public class KeyEncoderTests
{
    [Fact]
    public void EqualKeys_GiveEqualBytes_WhateverCompressionTheOptionsAskFor()
    {
        string longKey = new('k', 10_000);
        byte[] plain = Encode(longKey, MessagePackSerializerOptions.Standard);
        byte[] lz4Block = Encode(longKey, MessagePackSerializerOptions.Standard.WithCompression(MessagePackCompression.Lz4Block));
        byte[] lz4BlockArray = Encode(longKey, MessagePackSerializerOptions.Standard.WithCompression(MessagePackCompression.Lz4BlockArray));

        Assert.Equal(plain, lz4Block);
        Assert.Equal(plain, lz4BlockArray);
        Assert.Equal(MessagePackSerializer.Serialize(longKey, MessagePackSerializerOptions.Standard), plain);
    }

    [Fact]
    public async Task AStoreWhoseOptionsAskForLz4_FindsKeysWrittenByAStoreWhoseOptionsDoNot()
    {
        using var temp = new TempDirectory();
        MixedStorageKVStoreOptions options = TypedStores.Durable(temp.Path, DurabilityMode.Checkpoint);
        string key = new('k', 2_000);
        await using (var store = new MixedStorageKVStore<string, string>(options))
        {
            await store.UpsertAsync(key, "value");
        }

        options.MessagePackSerializerOptions = MessagePackSerializerOptions.Standard.WithCompression(MessagePackCompression.Lz4BlockArray);
        await using var reopened = new MixedStorageKVStore<string, string>(options);

        Assert.Equal("value", (await reopened.ReadAsync(key)).Value);
    }

    [Fact]
    public void TypeNames_AreCSharpNamesWithoutAssemblyVersions()
    {
        Assert.Equal("System.Int32", TypeNames.Of(typeof(int)));
        Assert.Equal("System.Byte[]", TypeNames.Of(typeof(byte[])));
        Assert.Equal("System.Int32[,]", TypeNames.Of(typeof(int[,])));
        Assert.Equal("System.Collections.Generic.Dictionary<System.String, System.Collections.Generic.List<KeyValueStore.Conformance.Customer>>", TypeNames.Of(typeof(Dictionary<string, List<Customer>>)));
        Assert.Equal("System.Nullable<System.Int64>", TypeNames.Of(typeof(long?)));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void AKeysBytes_AreMessagePacks_ForTheOptionsOldSpecSetting(bool oldSpec)
    {
        // A 40-character string: str8 (0xd9) in the current spec, which the old spec lacks (str16, 0xda). The store
        // calls the formatter itself, so it must set up the writer as MessagePackSerializer would.
        string key = new('k', 40);
        MessagePackSerializerOptions options = MessagePackSerializerOptions.Standard.WithOldSpec(oldSpec);

        byte[] encoded = Encode(key, options);

        Assert.Equal(MessagePackSerializer.Serialize(key, options), encoded);
        Assert.Equal(oldSpec ? 0xda : 0xd9, encoded[0]);
    }

    private static byte[] Encode(string key, MessagePackSerializerOptions options)
    {
        RentedBytes bytes = new KeyEncoder<string>(options).Encode(key);
        byte[] copy = bytes.Memory.ToArray();
        bytes.Return();
        return copy;
    }
}
