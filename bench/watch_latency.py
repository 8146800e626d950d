#!/usr/bin/env python3
# bench/watch_latency.py: the time from a write to its fs.changes event, through `hermes serve`
# over stdio (NDJSON). A watch on a fresh workspace; then, N times: a fs.changes with waitSeconds
# is sent, 2 ms later one of 50 files is written (open, write, close), and the time from just
# before the write to the arrival of the reply holding its event is one sample. Prints the median, 99th percentile and maximum.
#
#   bench/watch_latency.py [HERMES]    (default: ./hermes)   environment: N (default 1000)
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

hermes = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HERMES", "./hermes"))
n = int(os.environ.get("N", "1000"))
root = tempfile.mkdtemp(prefix="hermes-watch-bench.")
proc = subprocess.Popen([hermes, "serve", "--root", root], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, bufsize=0)
buf = b""


def send(id, method, params):
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method,
                                 "params": params}).encode() + b"\n")


def reply(id):
    global buf
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            m = json.loads(line)
            if m.get("id") == id:
                return m
        select.select([proc.stdout], [], [], 10)
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            sys.exit("hermes serve ended")
        buf += chunk


try:
    send(0, "fs.watch", {})
    handle = reply(0)["result"]["handle"]
    cursor = 0
    samples = []
    for i in range(1, n + 1):
        name = "f%d.txt" % (i % 50)  # 50 files, written in turn: a new file's event, or a change
        send(i, "fs.changes", {"handle": handle, "cursor": cursor, "waitSeconds": 10})
        time.sleep(0.002)  # the request is waiting by then
        t0 = time.perf_counter()
        with open(os.path.join(root, name), "w") as f:
            f.write("write %d\n" % i)
        id = i
        while True:  # until the reply holds this write's event (not a late one of the last)
            r = reply(id)["result"]
            cursor = r["cursor"]
            if any(e["path"] == name for e in r["events"]):
                break
            id = "again-%d-%s" % (i, id)
            send(id, "fs.changes", {"handle": handle, "cursor": cursor, "waitSeconds": 10})
        samples.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.002)
        send("close-%d" % i, "fs.changes", {"handle": handle, "cursor": cursor})  # its close event
        cursor = reply("close-%d" % i)["result"]["cursor"]
    samples.sort()
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print("write -> fs.changes event, %d writes: median %.3f ms, p99 %.3f ms, max %.3f ms"
          % (n, statistics.median(samples), p99, samples[-1]))
finally:
    proc.stdin.close()
    proc.wait(10)
    shutil.rmtree(root, ignore_errors=True)
