namespace KeyValueStore.LoadTest.Reporting;

/// <summary>Memory of the whole load-test process: peak working set (resident memory, high-water mark) and the GC's view.</summary>
internal sealed record MemoryReport(long PeakWorkingSetBytes, long GcHeapBytes, long GcAllocatedBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections);
