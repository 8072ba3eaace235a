global using StoreSession = FASTER.core.ClientSession<
    FASTER.core.SpanByte,
    FASTER.core.SpanByte,
    FASTER.core.SpanByte,
    KeyValueStore.Storage.PooledBuffer,
    FASTER.core.Empty,
    KeyValueStore.Engine.RecordFunctions>;
