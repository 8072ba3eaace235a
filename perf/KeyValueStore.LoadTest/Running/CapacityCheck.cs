using System;
using System.Globalization;
using System.IO;
using KeyValueStore.LoadTest.Options;

namespace KeyValueStore.LoadTest.Running;

/// <summary>
/// Refuses a load that cannot fit, before it starts: --records × (key + --value-size) must fit in the
/// free space of the run's disk, or for the memory backend in the memory this process may use. Without
/// this, "--records 100000000 --value-size 1m" would run until the machine ran out. The run phase can
/// grow the data further (a log appends); that is the measurement, not bad input. Likewise each worker's
/// batch buffers (--batch-size × --value-size) must fit in memory: 1024 workers of 65,535 1 MiB values would not.
/// </summary>
internal static class CapacityCheck
{
    public static void Ensure(LoadTestOptions options, string runDirectory)
    {
        long dataBytes = options.Records * (options.ValueSize + Workloads.RecordCodec.KeySize);
        (long available, string where) = options.Backend.StoresOnDisk
            ? (new DriveInfo(Path.GetFullPath(runDirectory)).AvailableFreeSpace, $"free on the disk of '{runDirectory}'")
            : (GC.GetGCMemoryInfo().TotalAvailableMemoryBytes, "of memory this process can use");
        if (dataBytes > available)
        {
            throw new InvalidOptionException(string.Create(CultureInfo.InvariantCulture,
                $"--records {options.Records} of --value-size {options.ValueSize} is {ByteSize.Human(dataBytes)} of data, more than the {ByteSize.Human(available)} {where}; lower --records or --value-size."));
        }

        long batchBytes = options.BatchSize > 1 ? (long)options.Threads * options.BatchSize * (options.ValueSize + Workloads.RecordCodec.KeySize) : 0;
        long memory = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        if (batchBytes > memory)
        {
            throw new InvalidOptionException(string.Create(CultureInfo.InvariantCulture,
                $"--batch-size {options.BatchSize} of --value-size {options.ValueSize} for each of --threads {options.Threads} is {ByteSize.Human(batchBytes)} of batch buffers, more than the {ByteSize.Human(memory)} of memory this process can use; lower --batch-size, --value-size or --threads."));
        }
    }
}
