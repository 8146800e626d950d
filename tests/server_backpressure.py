# tests/server_backpressure.py: a client that sends without reading cannot make hermes serve grow
# without bound: once it holds too much (requests in flight, replies unread, results being built;
# see src/session/session.h), the server stops reading its input and starting requests until the
# client reads. Its memory stays under 64 MiB (128 MiB with 64 big fs.readFile results, through
# either protocol), and nothing is lost: every request is answered once the client reads.
import os
import subprocess
import tempfile
import threading
import time

from server_lib import HERMES, check, rss_kib, run_tests, sanitized

N = int(os.environ.get("HERMES_BACKPRESSURE_REQUESTS", "300000"))
BOUND_KIB = 64 * 1024


def flood(method, params):
    """N requests from a client that reads nothing for two seconds, then reads everything."""
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
        peak = 0
        for _ in range(20):  # two seconds of not reading
            time.sleep(0.1)
            peak = max(peak, rss_kib(p.pid))
        check(sent and sent[-1] < N, "the server read all %d requests without the client reading" % N)
        if not sanitized(p.pid):
            check(peak < BOUND_KIB, "peak RSS %.1f MiB while the client did not read" % (peak / 1024))
        data = p.stdout.read()
        t.join(10)
        check(p.wait(30) == 0, "exit status %r" % p.returncode)
        check(data.count(b"\n") == N, "%d replies for %d requests" % (data.count(b"\n"), N))
        print("%s: peak RSS %.1f MiB with the client not reading; %d requests answered"
              % (method, peak / 1024, N))


def test_a_client_that_does_not_read_cannot_grow_the_server():
    # fs.exists is instant: the reader thread runs it and stops once the replies waiting pass
    # half their bound
    flood("fs.exists", '{"path":"x"}')


def test_nor_with_requests_run_by_workers():
    # fs.readRange is not: it goes to a worker, which does not start while the replies are over
    # their bound, and the reader stops at the bound of requests in flight
    flood("fs.readRange", '{"path":"x","startLine":1,"endLine":2}')


BIG_RESULTS_KIB = 128 * 1024


def big_results(command):
    """64 fs.readFile requests of an 11 MB file from a client that reads nothing for three
    seconds: the results being built count against the bound too, so the server stays under
    128 MiB; then every request is answered, whole."""
    with tempfile.TemporaryDirectory(prefix="hermes-bigresults.") as root:
        line = "%07d: the same text again and again, to be read whole by fs.readFile\n"
        with open(os.path.join(root, "big.txt"), "w") as f:
            f.write("".join(line % i for i in range(150000)))
        size = os.path.getsize(os.path.join(root, "big.txt"))
        p = subprocess.Popen([HERMES, command, "--root", root], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
        if command == "mcp":
            p.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
                          b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                          b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            p.stdin.flush()
            p.stdout.readline()
            req = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"fs_readFile",' \
                  b'"arguments":{"path":"big.txt"}}}\n'
        else:
            req = b'{"jsonrpc":"2.0","id":%d,"method":"fs.readFile","params":{"path":"big.txt"}}\n'
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
            check(peak < BIG_RESULTS_KIB, "%s: peak RSS %.1f MiB with 64 fs.readFile of %.1f MB "
                  "in flight" % (command, peak / 1024, size / 1e6))
        print("%s: 64 fs.readFile of %.1f MB, client not reading: peak RSS %.1f MiB; all answered"
              % (command, size / 1e6, peak / 1024))


def test_big_results_count_against_the_bound():
    big_results("serve")


def test_big_results_count_against_the_bound_mcp():
    big_results("mcp")


run_tests(globals(), per_test_timeout=120)
