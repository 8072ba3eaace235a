using System;
using System.Net;
using System.Net.Sockets;
using Garnet;

namespace KeyValueStore.Redis.Tests.Support;

/// <summary>
/// A real Garnet server in the test process, on 127.0.0.1 and a port that was free when it was created. It can be
/// stopped and started again on the same port, for tests of a server that goes away.
/// </summary>
public sealed class GarnetProcess : IDisposable
{
    private readonly string[] _settings;
    private GarnetServer? _server;

    /// <param name="settings">Garnet command-line settings beyond the port and the memory, e.g. persistence's.</param>
    public GarnetProcess(params string[] settings)
    {
        _settings = settings;
        Port = FreePort();
        Start();
    }

    public int Port { get; }

    /// <summary>Gets the StackExchange.Redis configuration string of the server: short timeouts, so a stopped server fails tests fast.</summary>
    public string Configuration => $"127.0.0.1:{Port},abortConnect=false,connectTimeout=2000,asyncTimeout=2000,syncTimeout=2000";

    /// <summary>Starts the server (again, after <see cref="Stop"/>), keeping nothing of what it held.</summary>
    public void Start()
    {
        // Small memory, index and pages: tests hold little (no value over 1 MB), several servers may run at once on a machine
        // of 2 cores, and the append-only file's pages (a test turns it on) must be twice the log's.
        _server = new GarnetServer(["--port", Port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--bind", "127.0.0.1", "--memory", "256m", "--index", "8m", "--page", "2m", .. _settings]);
        _server.Start();
    }

    /// <summary>Stops the server and closes its connections.</summary>
    public void Stop()
    {
        _server?.Dispose();
        _server = null;
    }

    public void Dispose() => Stop();

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
