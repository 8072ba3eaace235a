using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using KeyValueStore.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using OpenTelemetry.Metrics;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Metrics;

/// <summary>
/// The store's instruments reach a host's OpenTelemetry pipeline: the store's meter comes from the host's meter
/// factory, and OpenTelemetry's in-memory exporter receives every instrument docs/observability.md lists.
/// </summary>
public class OpenTelemetryMetricsTests
{
    private static readonly string[] Instruments =
    [
        "kvstore.operations",
        "kvstore.operation.duration",
        "kvstore.log.size",
        "kvstore.disk.usage",
        "kvstore.live.size",
        "kvstore.compactions",
        "kvstore.compaction.reclaimed",
        "kvstore.backpressure.duration",
        "kvstore.session_pool.waits",
        "kvstore.durable_flushes",
        "kvstore.value.compression",
        "kvstore.checkpoint.duration",
        "kvstore.commit.duration",
        "kvstore.commit.entries",
    ];

    [Fact]
    public async Task EveryInstrument_ArrivesAtTheHostsExporter_TaggedWithTheStoresName()
    {
        using var temp = new TempDirectory();
        var exported = new List<Metric>();
        using IHost host = TestHosts.Build(new RecordingLoggerProvider(), services =>
        {
            services.AddOpenTelemetry().WithMetrics(metrics => metrics.AddMeter(MixedStorageKVStore.MeterName).AddInMemoryExporter(exported));
            services.AddMixedStorageKVStore<int, string>(options =>
            {
                TestHosts.Durable(options, temp.Path);
                options.Durability = DurabilityMode.Commit;
                options.LogFileNamePrefix = "orders";
                options.PageSizeBits = 12;
                options.MemorySizeBits = 16;
                options.SegmentSizeBits = 20;
            });
        });
        await host.StartAsync();
        var store = host.Services.GetRequiredService<IMixedStorageKVStore<int, string>>();
        await Task.WhenAll(Enumerable.Range(0, 2_000).Select(i => store.UpsertAsync(i, new string('v', 200)).AsTask()));
        await store.ReadAsync(1);
        await store.ReadAsync(-1);
        CompactionSummary compacted = await store.CompactAsync();
        Assert.True(compacted.Compacted, $"nothing compacted: {compacted}");
        await store.CheckpointAsync();

        host.Services.GetRequiredService<MeterProvider>().ForceFlush();

        // Other tests' stores, running beside this one, publish on meters of the same name: only this store's points count.
        string[] missing = Instruments.Where(name => !exported.Any(metric => metric.Name == name && HasPointOf(metric, "orders"))).ToArray();
        Assert.True(missing.Length == 0, "not exported for the store: " + string.Join(", ", missing));
        // Other tests' stores share the meter's name: each is a meter of its own, told apart by its store tag.
        var tags = new List<(string Operation, string Outcome, string Store, long Count)>();
        foreach (Metric operations in exported.Where(metric => metric.Name == "kvstore.operations"))
        {
            foreach (ref readonly MetricPoint point in operations.GetMetricPoints())
            {
                var pointTags = new Dictionary<string, object?>();
                foreach (KeyValuePair<string, object?> tag in point.Tags)
                {
                    pointTags[tag.Key] = tag.Value;
                }

                tags.Add(((string)pointTags["kvstore.operation"]!, (string)pointTags["kvstore.outcome"]!, (string)pointTags["kvstore.store"]!, point.GetSumLong()));
            }
        }

        Assert.Contains(("upsert", "ok", "orders", 2_000L), tags);
        Assert.Contains(("read", "not_found", "orders", 1L), tags);
        await host.StopAsync();
    }

    private static bool HasPointOf(Metric metric, string store)
    {
        foreach (ref readonly MetricPoint point in metric.GetMetricPoints())
        {
            foreach (KeyValuePair<string, object?> tag in point.Tags)
            {
                if (tag.Key == "kvstore.store" && Equals(tag.Value, store))
                {
                    return true;
                }
            }
        }

        return false;
    }
}
