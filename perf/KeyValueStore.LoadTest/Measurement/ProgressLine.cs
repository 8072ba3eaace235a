using System;
using System.Globalization;
using System.IO;
using System.Threading;
using System.Threading.Tasks;

namespace KeyValueStore.LoadTest.Measurement;

/// <summary>
/// The live progress line of a phase, once per second: elapsed time, operations so far, and the rate
/// over the last second. On a terminal one line is rewritten in place ('\r'); otherwise (a file, a
/// pipe, CI) each update is its own line. A last line with the phase's totals ends every phase.
/// </summary>
internal sealed class ProgressLine
{
    private static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    private readonly TextWriter _output;
    private readonly bool _isTerminal;
    private readonly TimeProvider _time;
    private int _lastLength;

    public ProgressLine(TextWriter output, bool isTerminal, TimeProvider time)
    {
        _output = output;
        _isTerminal = isTerminal;
        _time = time;
    }

    /// <summary>
    /// Reports <paramref name="completed"/> (out of <paramref name="total"/>, when known) every second
    /// until <paramref name="stop"/> is cancelled, then prints the phase's final line. <paramref name="everySecond"/>,
    /// when given, is called with the elapsed time at each update and its text appended to the line.
    /// </summary>
    public async Task RunAsync(string phase, string unit, Func<long> completed, long? total, long startTimestamp, CancellationToken stop, Func<TimeSpan, string?>? everySecond = null)
    {
        long previousCount = 0;
        long previousTimestamp = startTimestamp;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await Task.Delay(Interval, _time, stop).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                break;
            }

            long now = _time.GetTimestamp();
            long count = completed();
            double rate = (count - previousCount) / _time.GetElapsedTime(previousTimestamp, now).TotalSeconds;
            TimeSpan sinceStart = _time.GetElapsedTime(startTimestamp, now);
            string line = Format(phase, unit, sinceStart, count, total, rate, "/s now");
            if (everySecond?.Invoke(sinceStart) is string detail)
            {
                line += "  " + detail;
            }

            Write(line, final: false);
            previousCount = count;
            previousTimestamp = now;
        }

        TimeSpan elapsed = _time.GetElapsedTime(startTimestamp);
        long finalCount = completed();
        Write(Format(phase, unit, elapsed, finalCount, total, finalCount / Math.Max(elapsed.TotalSeconds, 1e-9), "/s overall"), final: true);
    }

    private static string Format(string phase, string unit, TimeSpan elapsed, long count, long? total, double rate, string rateLabel) =>
        string.Create(CultureInfo.InvariantCulture,
            $"{phase,-7}{elapsed.TotalSeconds,6:0.0} s  {count,13:N0}{(total is long t ? FormattableString.Invariant($" / {t:N0}") : string.Empty)} {unit}  {rate,11:N0} {unit}{rateLabel}");

    private void Write(string line, bool final)
    {
        if (_isTerminal)
        {
            // Pad over the rest of a longer previous line, then stay on the line until the phase ends.
            _output.Write("\r" + line.PadRight(_lastLength));
            _lastLength = line.Length;
            if (final)
            {
                _output.WriteLine();
                _lastLength = 0;
            }
        }
        else
        {
            _output.WriteLine(line);
        }

        _output.Flush();
    }
}
