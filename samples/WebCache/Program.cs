using System;
using System.Threading.Tasks;
using KeyValueStore;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Caching.Distributed;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Metrics;

// A web API whose slow answers are cached in a persistent local IDistributedCache: stop the app, start it again, and
// the answers it cached are still there. `dotnet run --project samples/WebCache`, then GET /forecast/paris twice.
WebApplicationBuilder builder = WebApplication.CreateBuilder(args);

// The cache's store: options from appsettings.json ("Cache"), checked when the app starts.
builder.Services.AddMixedStorageDistributedCache(builder.Configuration.GetSection("Cache"));
builder.Services.AddHealthChecks().AddMixedStorageKVStore<string, byte[]>(MixedStorageDistributedCacheServiceCollectionExtensions.StoreKey);

// The store's metrics, printed to the console every ExportIntervalMilliseconds (appsettings.json, "Metrics").
if (builder.Configuration.GetValue("Metrics:Console", true))
{
    builder.Services.AddOpenTelemetry().WithMetrics(metrics => metrics
        .AddMeter(MixedStorageKVStore.MeterName)
        .AddConsoleExporter((_, reader) => reader.PeriodicExportingMetricReaderOptions.ExportIntervalMilliseconds = builder.Configuration.GetValue("Metrics:ExportIntervalMilliseconds", 30_000)));
}

WebApplication app = builder.Build();

app.MapGet("/forecast/{city}", async (string city, IDistributedCache cache) =>
{
    string key = "forecast:" + city.ToLowerInvariant();
    string? cached = await cache.GetStringAsync(key);
    if (cached is not null)
    {
        return Results.Ok(new Forecast(city, cached, FromCache: true));
    }

    string forecast = await ComputeForecastAsync(city);
    await cache.SetStringAsync(key, forecast, new DistributedCacheEntryOptions { AbsoluteExpirationRelativeToNow = TimeSpan.FromMinutes(10) });
    return Results.Ok(new Forecast(city, forecast, FromCache: false));
});

app.MapHealthChecks("/health");
app.Run();

// Stands in for a slow call to another service.
static async Task<string> ComputeForecastAsync(string city)
{
    await Task.Delay(TimeSpan.FromMilliseconds(300));
    return $"{city}: {Random.Shared.Next(-5, 30)} °C at {DateTimeOffset.UtcNow:HH:mm:ss}";
}

/// <summary>The answer, and whether it came from the cache.</summary>
internal sealed record Forecast(string City, string Text, bool FromCache);

/// <summary>The app's entry type, for tests that host it (WebApplicationFactory).</summary>
public partial class Program;
