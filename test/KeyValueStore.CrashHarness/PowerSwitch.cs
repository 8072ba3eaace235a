using System;
using System.Collections.Generic;
using System.Threading;

namespace KeyValueStore.CrashHarness;

/// <summary>
/// The power supply of every <see cref="PowerCutDevice"/> of one store. <see cref="Cut"/> is a power failure: from that
/// moment no write reaches a file, and each write the devices had accepted but not yet issued to the disk is lost, torn
/// (some of its sectors written, in no particular order) or written whole, as a disk cache losing power could leave it.
/// </summary>
/// <remarks>
/// FASTER's devices write through the operating system's cache (<c>O_DIRECT</c>/write-through), so a write whose
/// completion has fired is on the disk; those are never undone. What a real power cut can take is what was still in
/// flight, which is what the devices hold back for a moment before issuing (see <see cref="PowerCutDevice"/>).
/// </remarks>
internal sealed class PowerSwitch(int seed, bool lyingDisk = false)
{
    private readonly object _lock = new();
    private readonly List<PowerCutDevice.PendingWrite> _inFlight = [];
    private readonly Random _random = new(seed);
    private volatile bool _off;

    /// <summary>
    /// Gets whether the disk lies: it reports each write complete as soon as it accepts it, before it is durable. Only the
    /// harness's own test uses it, to show that the checker catches a store whose acknowledged writes a power cut takes.
    /// </summary>
    public bool LyingDisk { get; } = lyingDisk;

    /// <summary>Gets whether the power has been cut.</summary>
    public bool IsOff => _off;

    /// <summary>Gets what <see cref="Cut"/> did to the writes in flight: lost, torn and written whole.</summary>
    public (int Lost, int Torn, int Whole) Outcome { get; private set; }

    /// <summary>
    /// Cuts the power: every write still in flight is lost, torn or written whole, chosen at random; every later write
    /// is dropped and never completes. Returns once the disk holds what it will hold.
    /// </summary>
    public void Cut()
    {
        PowerCutDevice.PendingWrite[] inFlight;
        lock (_lock)
        {
            _off = true;
            inFlight = [.. _inFlight];
            _inFlight.Clear();
        }

        int lost = 0, torn = 0, whole = 0;
        foreach (PowerCutDevice.PendingWrite write in inFlight)
        {
            switch (_random.Next(3))
            {
                case 0:
                    lost++;
                    break;
                case 1:
                    torn++;
                    write.WriteSectors(sector => _random.Next(2) == 0);
                    break;
                default:
                    whole++;
                    write.WriteSectors(_ => true);
                    break;
            }
        }

        Outcome = (lost, torn, whole);
    }

    /// <summary>Takes a write in flight; false once the power is off, when the write must be dropped.</summary>
    internal bool TryAccept(PowerCutDevice.PendingWrite write)
    {
        lock (_lock)
        {
            if (_off)
            {
                return false;
            }

            _inFlight.Add(write);
            return true;
        }
    }

    /// <summary>Hands a write in flight to the disk; false when the power went off first, and the cut decided its fate.</summary>
    internal bool TryIssue(PowerCutDevice.PendingWrite write)
    {
        lock (_lock)
        {
            return !_off && _inFlight.Remove(write);
        }
    }

    /// <summary>Gets how many writes are in flight: accepted, not yet issued to the disk.</summary>
    public int InFlight
    {
        get
        {
            lock (_lock)
            {
                return _inFlight.Count;
            }
        }
    }

    /// <summary>A short, random delay before a write is issued: the window in which a power cut can take it.</summary>
    internal int NextIssueDelayMilliseconds()
    {
        lock (_lock)
        {
            return _random.Next(6);
        }
    }
}
