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

    public static IHost Build(string directory, FakeTimeProvider time, Action<IServiceCollection>? more = null) =>
        TestHosts.Build(new RecordingLoggerProvider(), services =>
        {
            services.AddSingleton<TimeProvider>(time);
            services.AddMixedStorageDistributedCache(options =>
            {
                TestHosts.Durable(options, directory);

                // Pages of 2 MB, so that a value of 1 MB fits a record.
                options.PageSizeBits = 21;
                options.MemorySizeBits = 23;
                options.SegmentSizeBits = 23;
            });
            more?.Invoke(services);
        });
}
