using System;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Time.Testing;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Caching;

/// <summary>Hosts of the distributed cache on real store files, with a clock the test moves.</summary>
internal static class CacheHosts
{
    public static readonly DateTimeOffset Start = new(2026, 11, 26, 12, 0, 0, TimeSpan.Zero);

    public static IHost Build(string directory, FakeTimeProvider time, Action<IServiceCollection>? more = null, bool smallPages = false, DurabilityMode durability = DurabilityMode.Checkpoint) =>
        TestHosts.Build(new RecordingLoggerProvider(), services =>
        {
            services.AddSingleton<TimeProvider>(time);
            services.AddMixedStorageDistributedCache(options =>
            {
                TestHosts.Durable(options, directory);
                options.Durability = durability;

                // Pages of 2 MB, so that a value of 1 MB fits a record; or 4 KB pages and 64 KB of memory, so that
                // a few thousand entries reach the part of the log compaction works on.
                options.PageSizeBits = smallPages ? 12 : 21;
                options.MemorySizeBits = smallPages ? 16 : 23;
                options.SegmentSizeBits = smallPages ? 20 : 23;
            });
            more?.Invoke(services);
        });
}
