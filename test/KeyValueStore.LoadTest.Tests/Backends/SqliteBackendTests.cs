using System.IO;
using System.Threading.Tasks;
using KeyValueStore.LoadTest.Backends;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.Tests.Support;
using Microsoft.Data.Sqlite;

namespace KeyValueStore.LoadTest.Tests.Backends;

/// <summary>The two SQLite backends: one class, differing only in the synchronous level, which each really runs with.</summary>
public class SqliteBackendTests
{
    private const long SynchronousNormal = 1;
    private const long SynchronousFull = 2;

    [Theory]
    [InlineData("sqlite", SynchronousNormal)]
    [InlineData("sqlite-full", SynchronousFull)]
    public async Task EachSqliteBackend_WritesThroughAConnectionWithItsSynchronousLevel_InWalMode(string name, long expectedSynchronous)
    {
        using var temp = new TempDirectory();
        BackendDescriptor descriptor = BackendCatalog.Find(name)!;

        await using (var backend = (SqliteBackend)descriptor.Open(Context(temp.Path)))
        {
            Assert.Equal(expectedSynchronous, backend.QuerySynchronous());
            await backend.UpsertAsync(new byte[] { 1 }, new byte[] { 2 });
        }

        // The journal mode, unlike the synchronous level, is stored in the database file: a new connection sees it.
        string file = Assert.Single(Directory.GetFiles(temp.Path, "*.db"));
        using var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = file, Pooling = false }.ToString());
        connection.Open();
        using SqliteCommand command = connection.CreateCommand();
        command.CommandText = "PRAGMA journal_mode;";
        Assert.Equal("wal", (string)command.ExecuteScalar()!);
    }

    [Fact]
    public async Task SqliteFull_CountsOneDurableFlushPerCommittedUpsert()
    {
        using var temp = new TempDirectory();
        await using var backend = (SqliteBackend)BackendCatalog.Find("sqlite-full")!.Open(Context(temp.Path));

        for (byte key = 0; key < 25; key++)
        {
            await backend.UpsertAsync(new[] { key }, new byte[] { 7 });
        }

        await backend.UpsertAsync(new byte[] { 3 }, new byte[] { 8 }); // An update commits a transaction too.

        Assert.Equal(26, backend.DurableFlushes);
    }

    [Fact]
    public async Task Sqlite_WithSynchronousNormal_CountsNoFlushes()
    {
        // NORMAL syncs at WAL checkpoints only, so commits are not flushes and the report must not call them so.
        using var temp = new TempDirectory();
        await using var backend = (SqliteBackend)BackendCatalog.Find("sqlite")!.Open(Context(temp.Path));

        await backend.UpsertAsync(new byte[] { 1 }, new byte[] { 2 });

        Assert.Null(backend.DurableFlushes);
    }

    private static BackendContext Context(string directory) => new(directory, Records: 100, ValueSize: 16, LoadTestOptions.DefaultMemorySize);
}
