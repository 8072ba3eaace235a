#!/usr/bin/env python3
"""What one buffered write of a 2 MB log page costs on this machine, in three cases: into a new file (page-cache
memory the kernel must find), into a new file right after deleting one as large (memory just freed), and over pages
already cached. On a VM that gives freed memory back to its host (free page reporting) the first case faults every
page in again. Usage: scripts/page-write-cost.py DIRECTORY [PAGES]; it writes and deletes files of PAGES x 2 MB there."""
import os, sys, time

directory = sys.argv[1]
pages = int(sys.argv[2]) if len(sys.argv) > 2 else 64
page = os.urandom(2 << 20)


def write_pages(path, truncate):
    """Writes PAGES pages at consecutive offsets; returns the median wall and CPU milliseconds per write."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if truncate else 0)
    descriptor = os.open(path, flags, 0o644)
    walls, cpus = [], []
    for index in range(pages):
        wall, cpu = time.perf_counter(), time.process_time()
        os.pwrite(descriptor, page, index * len(page))
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    os.close(descriptor)
    return sorted(walls)[pages // 2], sorted(cpus)[pages // 2]


first, second = os.path.join(directory, "page-write-cost.a"), os.path.join(directory, "page-write-cost.b")
try:
    print("into a new file:                 %.2f ms per 2 MB write (%.2f ms CPU), median of %d" % (*write_pages(first, True), pages))
    print("over the same pages, cached:     %.2f ms (%.2f ms CPU)" % write_pages(first, False))
    os.unlink(first)
    print("into a new file, just after a delete: %.2f ms (%.2f ms CPU)" % write_pages(second, True))
finally:
    for path in (first, second):
        if os.path.exists(path):
            os.unlink(path)
