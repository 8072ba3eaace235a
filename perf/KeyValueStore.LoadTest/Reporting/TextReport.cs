using System;
using System.Globalization;
using System.IO;
using System.Linq;
using KeyValueStore.LoadTest.Options;
using KeyValueStore.LoadTest.Workloads;

namespace KeyValueStore.LoadTest.Reporting;

/// <summary>The report as people read it: settings, then throughput (and batches, with --batch-size), a latency table, durable flushes where counted, disk, memory and verification.</summary>
internal static class TextReport
{
    public static void Write(LoadTestReport report, TextWriter output)
    {
        SettingsReport settings = report.Settings;
        var text = new StringWriter(CultureInfo.InvariantCulture);
        text.WriteLine();
        Line(text, "backend", $"{settings.Backend}: {settings.BackendDescription}");
        string family = Workload.Find(settings.Workload) is { IsYcsb: false } ? string.Empty : "YCSB ";
        Line(text, "workload", $"{family}{settings.Workload} ({settings.WorkloadDescription}), {settings.Distribution} keys");
        Line(text, "records", $"{settings.Records:N0} records, 8-byte keys, {settings.ValueSize:N0}-byte values ({settings.ValueFill} filler)");
        Line(text, "workers", $"{settings.Threads} concurrent async workers, seed {settings.Seed}");
        if (settings.BatchSize > 1)
        {
            Line(text, "batch size", $"{settings.BatchSize:N0} updates and inserts per atomic batch; reads and read-modify-writes stay single");
        }

        if (settings.MemorySizeBytes is long memory && settings.PageSizeBytes is long page)
        {
            Line(text, "memory size", $"{ByteSize.Format(memory)} of log in memory, {memory / page} pages of {ByteSize.Format(page)}");
        }

        if (settings.Compaction == false)
        {
            Line(text, "compaction", $"off (--compaction off): the log only grows");
        }

        if (settings.DiskBudgetBytes is long budget)
        {
            Line(text, "disk budget", $"{ByteSize.Format(budget)} of log at most (--disk-budget)");
        }

        if (settings.MutableFraction is double fraction)
        {
            Line(text, "mutable fraction", $"{fraction.ToString(System.Globalization.CultureInfo.InvariantCulture)} of the log's memory updated in place (--mutable-fraction)");
        }

        if (settings.SegmentSizeBytes is long segmentBytes)
        {
            Line(text, "segments", $"{ByteSize.Format(segmentBytes)} files (--segment-size)");
        }

        if (settings.CompactionRatio is double compactionRatio)
        {
            Line(text, "compaction ratio", $"compaction runs once the log is {compactionRatio.ToString(System.Globalization.CultureInfo.InvariantCulture)} times the live data (--compaction-ratio)");
        }

        if (settings.Rate is long rate)
        {
            Line(text, "rate", $"paced at {rate:N0} ops/s, all workers together (--rate); latencies from each operation's issue, lag against the schedule below");
        }

        if (settings.WarmupSeconds > 0)
        {
            Line(text, "warm-up", $"{settings.WarmupSeconds} s of the workload before the run, not measured (--warmup)");
        }

        if (settings.Cold)
        {
            Line(text, "page cache", $"dropped between load and run (--cold): the run's first seconds read records on disk from the device");
        }

        Line(text, "directory", $"{settings.RunDirectory} (removed after the run)");
        if (settings.WriteAheadLogDirectory is string walDirectory)
        {
            Line(text, "wal directory", $"a fresh directory inside {walDirectory} (--wal-dir), removed after the run");
        }

        if (settings.Endpoint is string endpoint)
        {
            Line(text, "endpoint", $"{endpoint} (--endpoint), the run's keys under a fresh prefix, deleted after the run");
        }

        Line(text, "machine", $"{report.Machine.ProcessorCount} cores, {report.Machine.OperatingSystem}, {report.Machine.Runtime}, {(report.Machine.ServerGarbageCollector ? "server" : "workstation")} GC");
        text.WriteLine();

        PhaseReport load = report.Load;
        Line(text, "load", $"{load.Operations:N0} records in {load.Seconds:0.00} s, {load.OperationsPerSecond:N0} records/s{(load.Completed ? string.Empty : " (interrupted)")}");
        RunReport run = report.Run;
        Line(text, "run", $"{run.Operations:N0} operations in {run.Seconds:0.00} s, {run.OperationsPerSecond:N0} ops/s{(run.Completed ? string.Empty : " (interrupted)")}");
        if (run.AllocatedBytesPerOperation is double perOperation)
        {
            Line(text, "allocated", $"{ByteSize.Human(run.AllocatedBytes)} in the run, {perOperation:N0} B per operation (the whole process: backend, workers, sampling)");
        }

        Line(text, "gc pauses", $"{run.GcPauseMilliseconds:N1} ms in the run, all threads held ({run.Gen2Collections:N0} full collections)");

        if (report.Pacing is PacingReport pacing)
        {
            LatencyReport lag = pacing.IssueLagMicroseconds;
            Line(text, "issue lag", $"p50 {lag.P50:0.0} us, p99 {lag.P99:0.0} us, p99.9 {lag.P999:0.0} us, max {lag.Max:0.0} us behind the schedule of {pacing.TargetOperationsPerSecond:N0} ops/s");
        }

        if (run.PerThread.Operations.Count > 0)
        {
            Line(text, "per thread", $"{run.PerThread.MeanOperationsPerSecond:N0} ops/s mean, {run.PerThread.MinOperationsPerSecond:N0} min, {run.PerThread.MaxOperationsPerSecond:N0} max");
        }

        if (report.Batches is BatchReport batches)
        {
            LatencyReport latency = batches.LatencyMicroseconds;
            Line(text, "batches", $"{batches.Batches:N0} batches of {batches.BatchSize:N0} writes, {batches.BatchesPerSecond:N0} batches/s, {batches.WritesPerSecond:N0} writes/s; batch p50 {latency.P50:0.0} us, p99 {latency.P99:0.0} us");
        }

        text.WriteLine();
        Row(text, $"  {"operation",-18} {"count",12} {"ops/s",10} {"not found",10} {"mean us",9} {"p50 us",9} {"p99 us",9} {"p99.9 us",9} {"max us",10}");
        foreach (OperationReport operation in report.Operations)
        {
            LatencyReport latency = operation.LatencyMicroseconds;
            Row(text, $"  {operation.Type,-18} {operation.Count,12:N0} {operation.OperationsPerSecond,10:N0} {operation.NotFound,10:N0} {latency.Mean,9:0.0} {latency.P50,9:0.0} {latency.P99,9:0.0} {latency.P999,9:0.0} {latency.Max,10:0.0}");
        }

        if (report.Batches is not null)
        {
            Row(text, $"  (an update's or insert's latency is its batch's: it is acknowledged with its batch; the batch row counts batches)");
        }

        if (report.LatencyBesideBackgroundWork is { } beside && beside.Any(row => row.Beside != "neither" && row.Count > 0))
        {
            text.WriteLine();
            Line(text, "beside work", $"the same single operations, by what ran at some moment of each: a checkpoint, else a compaction pass, else neither");
            Row(text, $"  {"operation",-18} {"beside",-11} {"count",12} {"share",7} {"mean us",9} {"p50 us",9} {"p99 us",9} {"p99.9 us",9} {"max us",10} {"p99.9/neither",14}");
            foreach (BesideWorkLatencyReport row in beside.Where(row => row.Count > 0))
            {
                LatencyReport latency = row.LatencyMicroseconds;
                string ratio = row.P999PerNeither is double value ? FormattableString.Invariant($"{value:0.00}x") : string.Empty;
                Row(text, $"  {row.Type,-18} {row.Beside,-11} {row.Count,12:N0} {row.Share,7:P1} {latency.Mean,9:0.0} {latency.P50,9:0.0} {latency.P99,9:0.0} {latency.P999,9:0.0} {latency.Max,10:0.0} {ratio,14}");
            }
        }

        if (report.DurableFlushes is DurableFlushReport flushes)
        {
            text.WriteLine();
            string perWrite = flushes.FlushesPerWrite is double ratio ? FormattableString.Invariant($"{ratio:0.0000} per write") : "no writes";
            Line(text, "flushes", $"{flushes.Flushes:N0} durable flushes in the run, {perWrite} ({flushes.Writes:N0} writes)");
            Line(text, string.Empty, $"a flush: {flushes.Note}");
        }

        // With --compaction off the settings already say so, and there is nothing to account for.
        if (report.Compaction is CompactionReport compaction && report.Settings.Compaction != false)
        {
            text.WriteLine();
            Line(text, "compaction", $"{compaction.End.Describe()}");
            if (compaction.End.LiveBytesEstimate is long live)
            {
                Line(text, string.Empty, $"live bytes as last estimated: {ByteSize.Human(live)}; peak disk/live in any second of the run: {compaction.PeakDiskPerLive:0.00}x");
            }
            else
            {
                Line(text, string.Empty, $"no compaction pass yet, so no estimate of the live bytes");
            }
        }

        text.WriteLine();
        Line(text, "bytes on disk", $"{report.BytesOnDisk:N0} ({ByteSize.Human(report.BytesOnDisk)}), file sizes at the end of the run");
        MemoryReport memoryReport = report.Memory;
        Line(text, "peak memory", $"{ByteSize.Human(memoryReport.PeakWorkingSetBytes)} peak working set of the process");
        Line(text, "GC", $"heap {ByteSize.Human(memoryReport.GcHeapBytes)} at the end, {ByteSize.Human(memoryReport.GcAllocatedBytes)} allocated, collections gen0 {memoryReport.Gen0Collections} / gen1 {memoryReport.Gen1Collections} / gen2 {memoryReport.Gen2Collections}");

        VerificationReport verification = report.Verification;
        if (!verification.Enabled)
        {
            Line(text, "verify", $"off (--verify checks every read)");
        }
        else
        {
            Line(text, "verify", $"{verification.ReadsChecked:N0} reads checked (sweep: {verification.SweepReads:N0}), {verification.Mismatches:N0} mismatches");
            foreach (MismatchReport mismatch in verification.Examples)
            {
                Row(text, $"    {mismatch.Phase} {mismatch.Operation} of record {mismatch.KeyId}: expected {Expected(mismatch)}, got {mismatch.Observed}");
            }

            if (verification.Mismatches > verification.Examples.Count)
            {
                Row(text, $"    ... and {verification.Mismatches - verification.Examples.Count:N0} more");
            }
        }

        output.Write(text.ToString());
        output.Flush();
    }

    private static string Expected(MismatchReport mismatch)
    {
        if (mismatch.ExpectedHighestVersion == 0)
        {
            return "not found";
        }

        if (mismatch.ExpectedLowestVersion == mismatch.ExpectedHighestVersion)
        {
            return FormattableString.Invariant($"version {mismatch.ExpectedHighestVersion}");
        }

        string orNotFound = mismatch.ExpectedLowestVersion == 0 ? " or not found" : string.Empty;
        return FormattableString.Invariant($"a version in {Math.Max(mismatch.ExpectedLowestVersion, 1)}..{mismatch.ExpectedHighestVersion}{orNotFound}");
    }

    // Numbers are formatted the same on every machine, whatever its culture, so reports compare.
    private static void Line(StringWriter text, string label, FormattableString value) => text.WriteLine($"{label,-14} {value.ToString(CultureInfo.InvariantCulture)}");

    private static void Row(StringWriter text, FormattableString row) => text.WriteLine(row.ToString(CultureInfo.InvariantCulture));
}
