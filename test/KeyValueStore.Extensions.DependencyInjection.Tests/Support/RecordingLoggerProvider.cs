using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Extensions.Logging;

namespace KeyValueStore.Extensions.DependencyInjection.Tests.Support;

/// <summary>A logging provider that keeps every event's category and id, to show which logger the store wrote to.</summary>
internal sealed class RecordingLoggerProvider : ILoggerProvider
{
    private readonly ConcurrentQueue<(string Category, int EventId)> _events = new();

    public IReadOnlyList<(string Category, int EventId)> Events => _events.ToArray();

    public bool Saw(int eventId, string categoryPart) => _events.Any(e => e.EventId == eventId && e.Category.Contains(categoryPart, StringComparison.Ordinal));

    public ILogger CreateLogger(string categoryName) => new Recorder(categoryName, _events);

    public void Dispose()
    {
    }

    private sealed class Recorder(string category, ConcurrentQueue<(string, int)> events) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
            events.Enqueue((category, eventId.Id));
    }
}
