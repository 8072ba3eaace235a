using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Tests.Support;

/// <summary>Keeps every log event so tests can assert which events happened, in order.</summary>
internal sealed class RecordingLogger : ILogger
{
    private readonly ConcurrentQueue<(EventId Id, LogLevel Level, string Message, Exception? Exception)> _events = new();

    public IReadOnlyList<int> EventIds => _events.Select(e => e.Id.Id).ToList();

    public IReadOnlyList<(EventId Id, LogLevel Level, string Message, Exception? Exception)> Events => _events.ToList();

    public IDisposable? BeginScope<TState>(TState state)
        where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => true;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
        _events.Enqueue((eventId, logLevel, formatter(state, exception), exception));
}
