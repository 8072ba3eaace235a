using System.Diagnostics.Metrics;
using MessagePack;

namespace KeyValueStore;

/// <summary>
/// The options of a store. Read once, when the store is constructed; changing them afterwards has no
/// effect on a store that already exists.
/// </summary>
/// <remarks>
/// The defaults and meanings of the FASTER-related options match Jering.KeyValueStore's, so options
/// carry over unchanged (see docs/migrating-from-jering.md).
/// </remarks>
public sealed class MixedStorageKVStoreOptions
{
    /// <summary>Gets or sets the number of buckets in FASTER's hash index. Each bucket is a 64-byte cache line holding up to seven entries.</summary>
    /// <value>The default value is 1048576 (2^20 buckets, a 64 MB index). Must be a power of two.</value>
    /// <remarks>Ignored when a pre-built <c>FasterKV</c> is supplied.</remarks>
    public long IndexNumBuckets { get; set; } = 1L << 20;

    /// <summary>Gets or sets log2 of the size of a log page, the unit in which records move between memory and disk.</summary>
    /// <value>The default value is 25 (32 MB pages). Allowed: 9 (512 bytes, one disk sector) to 30.</value>
    /// <remarks>
    /// A record (key, value, and about 16 bytes of header and padding) must fit in one page. When a pre-built <c>FasterKV</c>
    /// is supplied, set this to the page size it was built with: FASTER does not expose it, and the store uses it to reject
    /// oversize records with <see cref="RecordTooLargeException"/>.
    /// </remarks>
    public int PageSizeBits { get; set; } = 25;

    /// <summary>Gets or sets log2 of the memory the log may hold; records beyond it are written to disk and read back from there.</summary>
    /// <value>The default value is 26 (64 MB). Must be at least <see cref="PageSizeBits"/> + 1 (two pages) and at most 48.</value>
    /// <remarks>Ignored when a pre-built <c>FasterKV</c> is supplied.</remarks>
    public int MemorySizeBits { get; set; } = 26;

    /// <summary>
    /// Gets or sets the fraction of the in-memory log whose records are updated in place; an update of an older record in
    /// memory appends a new one instead.
    /// </summary>
    /// <value>
    /// The default value is <see langword="null"/>: 0.1 in <see cref="DurabilityMode.Commit"/> mode, 0.9 otherwise.
    /// Allowed: 0 to 1.
    /// </value>
    /// <remarks>
    /// <para>
    /// FASTER counts the region in whole pages behind the tail page, rounded down: with two pages in memory (the defaults)
    /// only the tail page is updated in place whatever the fraction; with many pages, a larger fraction updates more keys
    /// in place, so the log grows more slowly under overwrites. Each checkpoint flushes the whole region at once: the
    /// larger it is, the more work lands on the cores in one burst.
    /// </para>
    /// <para>
    /// In <see cref="DurabilityMode.Commit"/> mode every write waits for the write-ahead log, whose group commits wait
    /// behind that burst; 0.1 cut the update p99.9 beside a checkpoint by 0.9-2.3 ms (13-35%) there, at 3% of the throughput,
    /// 8% when the written keys all fit in memory. In the other modes 0.1 cost 7-8% of the throughput and did not
    /// shorten the pauses (docs/benchmarks.md, "How much of the log's memory is updated in place").
    /// </para>
    /// <para>Ignored when a pre-built <c>FasterKV</c> is supplied.</para>
    /// </remarks>
    public double? LogMutableFraction { get; set; }

    /// <summary>Gets or sets log2 of the size of one segment file of the on-disk log. Segment files are preallocated at this size.</summary>
    /// <value>The default value is 28 (256 MB). Must be at least <see cref="PageSizeBits"/> and at most 40.</value>
    /// <remarks>Ignored when a pre-built <c>FasterKV</c> is supplied.</remarks>
    public int SegmentSizeBits { get; set; } = 28;

    /// <summary>Gets or sets the directory holding the log's segment files.</summary>
    /// <value>The default value is <see langword="null"/>, meaning <c>&lt;temp path&gt;/FasterLogs</c>, where the temp path is <see cref="System.IO.Path.GetTempPath"/>.</value>
    /// <remarks>Created if it does not exist. Ignored when a pre-built <c>FasterKV</c> is supplied.</remarks>
    public string? LogDirectory { get; set; }

    /// <summary>Gets or sets the file name prefix of the segment files, which are named <c>&lt;prefix&gt;.log.&lt;n&gt;</c>.</summary>
    /// <value>The default value is <see langword="null"/>, meaning a new random GUID per store. Must be a plain file name: no path separator, no "..".</value>
    /// <remarks>Ignored when a pre-built <c>FasterKV</c> is supplied.</remarks>
    public string? LogFileNamePrefix { get; set; }

    /// <summary>Gets or sets whether the segment files are deleted when the store is disposed.</summary>
    /// <value>The default value is <see langword="true"/>.</value>
    /// <remarks>Ignored when a pre-built <c>FasterKV</c> is supplied: whoever built it owns its device.</remarks>
    public bool DeleteLogOnClose { get; set; } = true;

    /// <summary>Gets or sets the time between scheduled compaction attempts, in milliseconds of the store's <see cref="System.TimeProvider"/>.</summary>
    /// <value>The default value is 60000 (one minute). A negative value disables scheduled compaction; 0 is not allowed.</value>
    /// <remarks>
    /// Each attempt measures the log (what its segment files hold). Below the compaction threshold it skips; at or above
    /// it, it compacts the oldest part of the log, as much as brings it back under, and deletes the segment files that
    /// compaction emptied. A write that finds the log at the threshold starts an attempt at once, so writers faster than
    /// this interval cannot run far past it; while the log is a quarter again over the threshold, compaction holds writers back
    /// until it is under. docs/architecture.md (Compaction) tells the whole policy.
    /// </remarks>
    public int TimeBetweenLogCompactionsMS { get; set; } = 60_000;

    /// <summary>Gets or sets the smallest log size at which scheduled compaction starts.</summary>
    /// <value>The default value is 0, meaning twice the log's memory size (2 * 2^<see cref="MemorySizeBits"/> bytes).</value>
    /// <remarks>
    /// The threshold starts here. Each compaction then measures the live data and sets the threshold to
    /// <see cref="CompactionLogToLiveRatio"/> times it (twice by default), never below this size, so the log (and the disk)
    /// stays within that ratio and a quarter above it however fast it is written. When a pre-built <c>FasterKV</c> is supplied, set <see cref="MemorySizeBits"/> to its memory size
    /// so the default threshold fits it.
    /// </remarks>
    public long InitialLogCompactionThresholdBytes { get; set; }

    /// <summary>
    /// Gets or sets how large the log may grow, as a multiple of its live data, before compaction runs: the disk the store
    /// trades for the work of compacting.
    /// </summary>
    /// <value>The default value is 2. Allowed: 1.5 to 16.</value>
    /// <remarks>
    /// Compaction runs once the log reaches this many times the live data (as its passes estimate it), slows writers once
    /// the log is an eighth over that, and holds them at a quarter over it, so a store written faster than compaction copies
    /// keeps its log between this ratio and a quarter above it; on disk come the segment files at either end of the log. A
    /// lower ratio keeps less disk and copies more: each pass finds less garbage beside the live records it must move.
    /// Over ten minutes of eight unpaced writers of 1 KB overwrites in Checkpoint mode, 1.5 kept the files at 2.14 times
    /// the live data (median) where 2 kept them at 2.66 times, for 14% fewer operations a second (docs/benchmarks.md,
    /// "A lower ratio of log to live data").
    /// </remarks>
    public double CompactionLogToLiveRatio { get; set; } = DefaultCompactionLogToLiveRatio;

    /// <summary>The default of <see cref="CompactionLogToLiveRatio"/>.</summary>
    internal const double DefaultCompactionLogToLiveRatio = 2;

    /// <summary>Gets or sets the most bytes the log may hold: a hard budget for its segment files, the bulk of the store's disk.</summary>
    /// <value>The default value is 0: no budget, the log is kept within <see cref="CompactionLogToLiveRatio"/> times the live data and a quarter above it. Otherwise at
    /// least twice the log's memory size and two segments.</value>
    /// <remarks>
    /// The log is measured from its begin address to its tail. Compaction starts early enough to keep it under the budget
    /// and holds writers back at the budget at the latest; a write that finds the log full asks compaction for room and
    /// waits for it. Only when compaction leaves the log full (the live data itself fills the budget) is a write refused,
    /// with <see cref="LogDiskBudgetExceededException"/>; nothing of it is written. Deletes are always accepted, and the
    /// next write after one asks compaction again. Writers that arrive together may pass the budget by the writes they
    /// make. Needs scheduled compaction (<see cref="TimeBetweenLogCompactionsMS"/>).
    /// <para>
    /// On top of the budget come segments compaction emptied but a checkpoint has yet to release (durable stores), the
    /// checkpoint files and, in <see cref="DurabilityMode.Commit"/> mode, the write-ahead log. A budget near the live data
    /// makes compaction copy that data often for little room: give it at least twice the data you expect to keep.
    /// </para>
    /// </remarks>
    public long LogDiskBudgetBytes { get; set; }

    /// <summary>Gets or sets the most FASTER sessions the store opens. An operation that finds every session busy waits asynchronously for one; no thread is blocked.</summary>
    /// <value>The default value is 128. Allowed: 1 to 4096.</value>
    /// <remarks>
    /// A session stays busy while its operation waits for a disk read, so this also bounds the number of
    /// disk reads in flight. Each session costs a few kilobytes.
    /// </remarks>
    public int SessionPoolSize { get; set; } = 128;

    /// <summary>Gets or sets what the store promises about its data across a restart or a crash.</summary>
    /// <value>The default value is <see cref="DurabilityMode.None"/>, a scratch store as in Jering.KeyValueStore.</value>
    /// <remarks>
    /// <see cref="DurabilityMode.Checkpoint"/> and <see cref="DurabilityMode.Commit"/> make the store a database: a store
    /// constructed on a directory that holds one recovers it. Both need <see cref="LogDirectory"/> set (the store's home) and
    /// <see cref="DeleteLogOnClose"/> set to <see langword="false"/>; <see cref="LogFileNamePrefix"/> defaults to <c>store</c>.
    /// See docs/durability.md for what each mode can lose and what it costs.
    /// </remarks>
    public DurabilityMode Durability { get; set; } = DurabilityMode.None;

    /// <summary>Gets or sets the time between periodic checkpoints, in milliseconds of the store's <see cref="System.TimeProvider"/>.</summary>
    /// <value>The default value is 5000 (five seconds). Must be positive when <see cref="Durability"/> is not <see cref="DurabilityMode.None"/>.</value>
    /// <remarks>
    /// In <see cref="DurabilityMode.Checkpoint"/> mode this is the most a crash can lose. In <see cref="DurabilityMode.Commit"/> mode
    /// every write is durable through the write-ahead log anyway; each checkpoint lets that log drop what the checkpoint
    /// holds, which bounds how much recovery replays (the log also starts a checkpoint itself when it reaches four of its
    /// segments, so its files stay bounded). Ignored in <see cref="DurabilityMode.None"/> mode.
    /// </remarks>
    public int CheckpointIntervalMS { get; set; } = 5_000;

    /// <summary>Gets or sets the directory of the write-ahead log, to put it on a device of its own.</summary>
    /// <value>The default value is <see langword="null"/>, meaning the log lives in <see cref="LogDirectory"/> as <c>&lt;prefix&gt;.wal</c>.</value>
    /// <remarks>
    /// <para>
    /// In <see cref="DurabilityMode.Commit"/> mode every acknowledged write waits for the write-ahead log's group commit
    /// (an fsync). On the device that also takes the segment files' page writes and the checkpoints, that fsync queues
    /// behind them. On a device of its own the commits wait for nothing else (measured: about twice the throughput, and
    /// half the pauses beside compaction and checkpoints, which the segments' device still lengthens; docs/benchmarks.md). The log is kept there as <c>&lt;prefix&gt;.&lt;store id&gt;.wal</c>, so several stores can
    /// share the directory, and the store's manifest records that its log lives elsewhere.
    /// </para>
    /// <para>
    /// Only <see cref="DurabilityMode.Commit"/> writes a log there. A store whose log is elsewhere must be reopened with this
    /// set to the directory that holds it (both may be moved, together or apart), also in
    /// <see cref="DurabilityMode.Checkpoint"/> mode, which applies the log and retires it. To move a log from one directory
    /// to another, open and close the store once in <see cref="DurabilityMode.Checkpoint"/> mode, then reopen it in
    /// <see cref="DurabilityMode.Commit"/> mode with the new directory. Not allowed in <see cref="DurabilityMode.None"/> mode.
    /// </para>
    /// </remarks>
    public string? WriteAheadLogDirectory { get; set; }

    /// <summary>Gets or sets whether each value is stored with a CRC-32C checksum of its key and value, verified on every read.</summary>
    /// <value>The default value is <see langword="false"/>.</value>
    /// <remarks>
    /// A value whose checksum does not match throws <see cref="ValueChecksumMismatchException"/> naming where the record
    /// lies on disk, instead of returning wrong bytes. Costs 4 bytes per record and a checksum per read and write. Recorded
    /// in a durable store's manifest: a store must be reopened with the setting it was created with.
    /// </remarks>
    public bool ValueChecksums { get; set; }

    /// <summary>Gets or sets the MessagePack options keys and values are serialized with: the resolver, security and other settings.</summary>
    /// <value>The default value is <see langword="null"/>, meaning <see cref="MessagePackSerializerOptions.Standard"/>.</value>
    /// <remarks>
    /// Their <see cref="MessagePackSerializerOptions.Compression"/> setting is ignored. Keys are never compressed, so equal
    /// keys always have equal bytes; values are compressed by the store itself (see <see cref="ValueCompressionThresholdBytes"/>).
    /// A durable store records its key and value types, not these options: reopen it with options that read what they wrote.
    /// </remarks>
    public MessagePackSerializerOptions? MessagePackSerializerOptions { get; set; }

    /// <summary>Gets or sets the size of a value's MessagePack encoding at which the store LZ4-compresses it.</summary>
    /// <value>The default value is 1024 bytes. 0 makes every value a candidate; a negative value compresses none.</value>
    /// <remarks>
    /// A compressed value is kept only when it is smaller; incompressible data is stored as it is, at one byte of cost.
    /// After 64 values in a row that did not shrink, the store tries only about one value in sixteen until one shrinks
    /// again, so incompressible data (already compressed or encrypted) costs little CPU; the values written in between are
    /// stored as they are. Either way a record must fit in one page uncompressed (see <see cref="PageSizeBits"/>). Reading
    /// needs no setting: each value records how it was stored, so this can change between opens.
    /// </remarks>
    public int ValueCompressionThresholdBytes { get; set; } = 1024;

    /// <summary>Gets or sets the factory the store's <c>KeyValueStore</c> meter is created from: a host's, so that its metrics pipeline sees it.</summary>
    /// <value>The default value is <see langword="null"/>: the store creates a meter of its own, which any listener still sees by name.</value>
    /// <remarks>docs/observability.md lists the instruments. The hosting package sets it to the host's factory.</remarks>
    public IMeterFactory? MeterFactory { get; set; }
}
