# tests/server_backpressure.py: a client that sends without reading cannot make hermes serve grow
# without bound: once it holds too much (requests in flight, replies unread, results being built;
# see src/session/session.h), the server stops reading its input and starting requests until the
# client reads. Its memory stays under 64 MiB (128 MiB with 64 big fs.readFile results, through
# either protocol), and nothing is lost: every request is answered once the client reads. The
# flood of a million instant requests is tests/server_flood.py's.
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from server_lib import HERMES, check, rss_kib, run_tests, sanitized

N = int(os.environ.get("HERMES_BACKPRESSURE_REQUESTS", "300000"))
BOUND_KIB = 64 * 1024


def flood(method, params, n=N, load=0):
    """n requests from a client that reads nothing for two seconds, then reads everything; load:
    busy processes that load the machine meanwhile (the figure used to depend on timing)."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        flood_run(method, params, n)
    finally:
        for b in busy:
            b.kill()
            b.wait()


def flood_run(method, params, N):
    with tempfile.TemporaryDirectory(prefix="hermes-backpressure.") as root:
        p = subprocess.Popen([HERMES, "serve", "--root", root], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
        line = b'{"jsonrpc":"2.0","id":%d,"method":"' + method.encode() + b'","params":' + \
            params.encode() + b'}\n'
        sent = []

        def writer():
            for start in range(0, N, 1000):
                p.stdin.write(b"".join(line % i for i in range(start, min(N, start + 1000))))
                sent.append(min(N, start + 1000))
            p.stdin.close()

        t = threading.Thread(target=writer, daemon=True)
        t.start()
        peak = [0]
        done = threading.Event()

        def sampler():  # the highest RSS of the whole run, while reading too
            while not done.is_set():
                try:
                    peak[0] = max(peak[0], rss_kib(p.pid, "VmHWM"))
                except (OSError, ValueError, TypeError):
                    break
                time.sleep(0.01)

        sample = threading.Thread(target=sampler, daemon=True)
        sample.start()
        time.sleep(2)  # of not reading
        check(sent and sent[-1] < N, "the server read all %d requests without the client reading" % N)
        asan = sanitized(p.pid)
        quiet = peak[0]
        chunks = []
        while True:
            chunk = p.stdout.read1(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        done.set()
        sample.join()
        data = b"".join(chunks)
        t.join(10)
        check(p.wait(30) == 0, "exit status %r" % p.returncode)
        ids = sorted(int(m) for m in re.findall(rb'"id":(\d+)', data))
        check(ids == list(range(N)), "%d replies for %d requests, not one for each" % (len(ids), N))
        if not asan:
            check(peak[0] < BOUND_KIB, "peak RSS %.1f MiB (%.1f MiB while the client did not read)"
                  % (peak[0] / 1024, quiet / 1024))
        print("%s: peak RSS %.1f MiB (%.1f MiB with the client not reading); %d requests answered "
              "once each" % (method, peak[0] / 1024, quiet / 1024, N))


def test_requests_run_by_workers():
    # fs.readRange is not instant: it goes to a worker, which does not start while the replies
    # are over their bound, and the reader stops at the bound of requests in flight (the flood of
    # instant fs.exists is tests/server_flood.py's)
    flood("fs.readRange", '{"path":"x","startLine":1,"endLine":2}')


BIG_RESULTS_KIB = 128 * 1024
ARGS = {"fs.readFile": b'{"path":"big.txt"}',
        "fs.readRange": b'{"path":"big.txt","startLine":1,"endLine":150000}'}


def big_results(command, verb="fs.readFile", args=()):
    """64 fs.readFile requests of an 11 MB file from a client that reads nothing for three
    seconds: the results being built count against the bound too, so the server stays under
    128 MiB; then every request is answered, whole."""
    with tempfile.TemporaryDirectory(prefix="hermes-bigresults.") as root:
        line = "%07d: the same text again and again, to be read whole by fs.readFile\n"
        with open(os.path.join(root, "big.txt"), "w") as f:
            f.write("".join(line % i for i in range(150000)))
        size = os.path.getsize(os.path.join(root, "big.txt"))
        p = subprocess.Popen([HERMES, command, "--root", root] + list(args),
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        if command == "mcp":
            p.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
                          b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                          b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            p.stdin.flush()
            p.stdout.readline()
            req = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"' + \
                verb.replace(".", "_").encode() + b'","arguments":' + ARGS[verb] + b'}}\n'
        else:
            req = b'{"jsonrpc":"2.0","id":%d,"method":"' + verb.encode() + b'","params":' + \
                ARGS[verb] + b'}\n'
        p.stdin.write(b"".join(req % i for i in range(1, 65)))
        p.stdin.flush()  # and kept open: MCP ends its long calls unanswered at end of input
        asan = sanitized(p.pid)
        time.sleep(3)  # of not reading
        peak = rss_kib(p.pid, "VmHWM")  # the highest RSS so far
        replies = [p.stdout.readline() for _ in range(64)]
        p.stdin.close()
        check(p.wait(60) == 0, "exit status %r" % p.returncode)
        whole = sum(1 for r in replies if b'"succeeded":true' in r and
                    r.count(b"the same text again") >= 150000)
        check(len(replies) == 64 and whole == 64,
              "%d replies, %d of them whole, for 64 requests" % (len(replies), whole))
        if not asan:
            check(peak < BIG_RESULTS_KIB, "%s: peak RSS %.1f MiB with 64 %s of %.1f MB "
                  "in flight" % (command, peak / 1024, verb, size / 1e6))
        print("%s: 64 %s of %.1f MB, client not reading: peak RSS %.1f MiB; all answered"
              % (command, verb, size / 1e6, peak / 1024))


def test_big_results_count_against_the_bound():
    big_results("serve")


def test_big_results_count_against_the_bound_mcp():
    big_results("mcp")


def test_read_range_results_count_against_the_bound():
    # fs.readRange is run by the workers (16 of them here): each says what its lines hold before
    # it reads them, as fs.readFile does
    big_results("serve", "fs.readRange", ["--jobs=16"])


def test_read_range_results_count_against_the_bound_mcp():
    big_results("mcp", "fs.readRange", ["--jobs=16"])


run_tests(globals(), per_test_timeout=120)
