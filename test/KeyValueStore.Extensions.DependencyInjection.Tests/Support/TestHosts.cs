using System;
using KeyValueStore.Extensions.DependencyInjection.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Extensions.DependencyInjection.Tests;

/// <summary>A real generic host with no defaults (no appsettings, no environment), logging to a recorder.</summary>
internal static class TestHosts
{
    public static IHost Build(RecordingLoggerProvider logs, Action<IServiceCollection> register)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Trace);
        builder.Logging.AddProvider(logs);
        register(builder.Services);
        return builder.Build();
    }

    /// <summary>Durable options that keep the files after the store closes, in <paramref name="directory"/>.</summary>
    public static void Durable(MixedStorageKVStoreOptions options, string directory)
    {
        options.LogDirectory = directory;
        options.Durability = DurabilityMode.Checkpoint;
        options.DeleteLogOnClose = false;

        // A small store: these tests are about its lifetime in the host, not its size.
        options.IndexNumBuckets = 1 << 12;
        options.PageSizeBits = 16;
        options.MemorySizeBits = 20;
        options.SegmentSizeBits = 22;
    }
}
