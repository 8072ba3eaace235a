using KeyValueStore.Tests.Support;
using System.Linq;
using System.IO;
using KeyValueStore.Storage;

namespace KeyValueStore.Tests.Storage;

public class LogFileLayoutTests
{
    [Fact]
    public void OpeningAStore_InADirectoryThatCannotBeCreated_ThrowsNamingTheDirectory()
    {
        using var temp = new TempDirectory();
        string regularFile = Path.Combine(temp.Path, "a-file");
        File.WriteAllText(regularFile, "not a directory");
        string impossible = Path.Combine(regularFile, "logs");

        var exception = Assert.Throws<LogDirectoryUnavailableException>(
            () => StoreFactory.Open(new MixedStorageKVStoreOptions { LogDirectory = impossible }));

        Assert.Equal(impossible, exception.Directory);
        Assert.Contains(impossible, exception.Message, System.StringComparison.Ordinal);
        Assert.Contains("LogDirectory", exception.Message, System.StringComparison.Ordinal);
    }

    [Fact]
    public void Segments_ListsOnlyThisPrefixsSegmentsInOrder()
    {
        using var temp = new TempDirectory();
        foreach (string name in new[] { "p.log.10", "p.log.2", "p.log.x", "other.log.1", "p.log" })
        {
            File.WriteAllText(Path.Combine(temp.Path, name), "");
        }

        var layout = new LogFileLayout(temp.Path, "p");

        Assert.Equal(new[] { "p.log.2", "p.log.10" }, layout.Segments().Select(segment => Path.GetFileName(segment.Path)));
    }
}
