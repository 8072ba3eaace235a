#!/usr/bin/env python3
"""Random 4 KB reads of a file that bypass the page cache (O_DIRECT), from N threads at once: a stand-in for fio's
random-read IOPS where fio is not installed. Usage: scripts/device-random-reads.py FILE THREADS SECONDS
Create FILE first, larger than any cache in the way (e.g. dd if=/dev/urandom of=/tmp/iops.dat bs=1M count=1024).
Python threads release the interpreter lock while they wait in preadv, so THREADS reads are in flight at once."""
import mmap, os, random, sys, threading, time

path, threads, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
blocks = os.path.getsize(path) // 4096
stop = time.time() + seconds
counts = [0] * threads


def read_randomly(index):
    descriptor = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buffer = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT requires
    chooser = random.Random(index)
    done = 0
    while time.time() < stop:
        os.preadv(descriptor, [buffer], chooser.randrange(blocks) * 4096)
        done += 1
    counts[index] = done
    os.close(descriptor)


workers = [threading.Thread(target=read_randomly, args=(i,)) for i in range(threads)]
for worker in workers:
    worker.start()
for worker in workers:
    worker.join()
print(f"{threads} threads: {sum(counts) / seconds:,.0f} random 4 KB O_DIRECT reads/s")
