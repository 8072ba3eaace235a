using System;
using System.Diagnostics;
using System.IO;
using System.Linq;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// The operating system's page cache, for --cold: between the load and the run, dirty pages are written back and every
/// clean one dropped, so that the run's reads of records on disk start from the device, as after a reboot. Linux only,
/// and only for root (the kernel's <c>/proc/sys/vm/drop_caches</c>).
/// </summary>
/// <remarks>
/// It drops every file's pages, not only the store's, and the run reads them back in as it goes: the first seconds of
/// the run's per-second lines are the cold ones.
/// </remarks>
internal static class PageCache
{
    private const string DropCachesPath = "/proc/sys/vm/drop_caches";

    /// <summary>Why this process cannot drop the page cache, or null when it can.</summary>
    public static string? WhyCannotDrop()
    {
        if (!OperatingSystem.IsLinux())
        {
            return "--cold drops the operating system's page cache through Linux's /proc/sys/vm/drop_caches, and this is not Linux; leave it out.";
        }

        if (!File.Exists(DropCachesPath) || EffectiveUserId() != 0)
        {
            return $"--cold drops the page cache by writing {DropCachesPath}, which only root may do; run as root (sudo), or leave it out.";
        }

        return null;
    }

    /// <summary>Writes dirty pages back (<c>sync</c>), then drops the page cache, dentries and inodes.</summary>
    /// <exception cref="IOException">The kernel refused the write.</exception>
    public static void Drop()
    {
        // The sync command rather than libc's sync(): this project allows no unsafe code, which the import needs.
        using (Process sync = Process.Start(new ProcessStartInfo("sync") { UseShellExecute = false }) ?? throw new IOException("The sync command could not be started."))
        {
            sync.WaitForExit();
        }

        File.WriteAllText(DropCachesPath, "3\n");
    }

    /// <summary>The effective user id, the second number of the <c>Uid:</c> line of <c>/proc/self/status</c>; -1 when unreadable.</summary>
    private static long EffectiveUserId()
    {
        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(candidate => candidate.StartsWith("Uid:", StringComparison.Ordinal));
        string[] ids = line?.Split((char[]?)null, StringSplitOptions.RemoveEmptyEntries) ?? [];
        return ids.Length > 2 && long.TryParse(ids[2], out long effective) ? effective : -1;
    }
}
