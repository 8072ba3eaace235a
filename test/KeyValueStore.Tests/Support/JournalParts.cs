using KeyValueStore.Durability;
using KeyValueStore.Engine;

namespace KeyValueStore.Tests.Support;

/// <summary>The parts of a store's journal that tests inspect: its checkpointer and write-ahead log, null where its mode has none.</summary>
internal static class JournalParts
{
    extension(FasterRecordStore store)
    {
        /// <summary>Gets the checkpointer of a durable store, or null.</summary>
        public Checkpointer? Checkpointer => store.Journal switch
        {
            CheckpointJournal journal => journal.Checkpointer,
            WriteAheadJournal journal => journal.Checkpointer,
            _ => null,
        };

        /// <summary>Gets the write-ahead log of a Commit-mode store, or null.</summary>
        public WriteAheadLog? WriteAheadLog => (store.Journal as WriteAheadJournal)?.Log;
    }
}
