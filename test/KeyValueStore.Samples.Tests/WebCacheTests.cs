using System.Net.Http;
using System.Net.Http.Json;
using System.Text.Json;
using System.Threading.Tasks;
using KeyValueStore.Tests.Support;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;

namespace KeyValueStore.Samples.Tests;

/// <summary>
/// samples/WebCache hosted in-process: an answer it cached is served from the cache by the next request, and by the
/// first request after the app restarts, since the cache's store outlives the process.
/// </summary>
public class WebCacheTests
{
    [Fact]
    public async Task ACachedAnswer_SurvivesARestartOfTheApp()
    {
        using var temp = new TempDirectory();
        JsonElement first;
        using (WebApplicationFactory<Program> app = Hosted(temp.Path))
        {
            HttpClient client = app.CreateClient();
            first = await client.GetFromJsonAsync<JsonElement>("/forecast/Paris");
            JsonElement again = await client.GetFromJsonAsync<JsonElement>("/forecast/Paris");

            Assert.False(first.GetProperty("fromCache").GetBoolean());
            Assert.True(again.GetProperty("fromCache").GetBoolean());
            Assert.Equal(first.GetProperty("text").GetString(), again.GetProperty("text").GetString());
            Assert.Equal("Healthy", await client.GetStringAsync("/health"));
        }

        using WebApplicationFactory<Program> restarted = Hosted(temp.Path);
        JsonElement afterRestart = await restarted.CreateClient().GetFromJsonAsync<JsonElement>("/forecast/paris");

        Assert.True(afterRestart.GetProperty("fromCache").GetBoolean(), "the answer was computed again after the restart");
        Assert.Equal(first.GetProperty("text").GetString(), afterRestart.GetProperty("text").GetString());
    }

    private static WebApplicationFactory<Program> Hosted(string directory) =>
        new WebApplicationFactory<Program>().WithWebHostBuilder(host => host
            .UseSetting("Cache:LogDirectory", directory)
            .UseSetting("Metrics:Console", "false"));
}
