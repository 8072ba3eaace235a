using System;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using Garnet;
using KeyValueStore.LoadTest.Options;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;

namespace KeyValueStore.LoadTest.Backends;

/// <summary>
/// A real Garnet server in this process, on 127.0.0.1 and a port that was free a moment before, sized for a run by
/// <see cref="GarnetSizing"/>, with no storage tier: everything it holds is in memory, and gone when it stops. In this
/// process so that a run needs nothing installed, and its memory counts in the report's peak memory as the embedded
/// store's does; the load test still reaches it through a socket, as a service reaches its Garnet.
/// </summary>
internal sealed class InProcessGarnet : IDisposable
{
    // Garnet's default page; a record, the largest --value-size's too, must fit in one.
    private const string PageSize = "32m";

    private readonly GarnetServer _server;

    /// <summary>Starts the server; it listens when this returns.</summary>
    /// <param name="records">Records the run loads, which size its memory and index.</param>
    /// <param name="valueSize">Bytes per value, which size its memory.</param>
    /// <param name="loggerFactory">
    /// Where Garnet logs; null for nowhere. Without one Garnet makes its own, which logs to the console, in the middle of
    /// the report.
    /// </param>
    public InProcessGarnet(long records, int valueSize, ILoggerFactory? loggerFactory = null)
    {
        Port = FreePort();
        MemorySizeBytes = GarnetSizing.MemoryBytes(records, valueSize);
        IndexSizeBytes = GarnetSizing.IndexBytes(records);
        string[] arguments =
        [
            "--port", Port.ToString(CultureInfo.InvariantCulture),
            "--bind", IPAddress.Loopback.ToString(),
            "--memory", ByteSize.Format(MemorySizeBytes),
            "--index", ByteSize.Format(IndexSizeBytes),
            "--page", PageSize,

            // Quiet: no banner. Garnet writes it to the console itself, not through the logger, and it would land in the report.
            "-q",
        ];
        _server = new GarnetServer(arguments, loggerFactory ?? NullLoggerFactory.Instance);
        try
        {
            _server.Start();
        }
        catch
        {
            _server.Dispose();
            throw;
        }
    }

    /// <summary>Gets the port the server listens on, on 127.0.0.1.</summary>
    public int Port { get; }

    /// <summary>Gets the server's address as StackExchange.Redis takes it: <c>127.0.0.1:port</c>.</summary>
    public string Endpoint => string.Create(CultureInfo.InvariantCulture, $"{IPAddress.Loopback}:{Port}");

    /// <summary>Gets the server's log memory (<c>--memory</c>).</summary>
    public long MemorySizeBytes { get; }

    /// <summary>Gets the server's hash index (<c>--index</c>).</summary>
    public long IndexSizeBytes { get; }

    /// <summary>Stops the server, closing its connections; what it held is gone.</summary>
    public void Dispose() => _server.Dispose();

    /// <summary>
    /// A port the system just handed out and took back. Another process may take it before Garnet binds it; the server then
    /// fails to start, and the run with it, which is rare enough on a test machine not to retry.
    /// </summary>
    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
