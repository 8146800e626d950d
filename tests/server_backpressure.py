# tests/server_backpressure.py: a client that sends without reading cannot make hermes serve grow
# without bound: once it holds too much (requests in flight, replies unread; see
# src/server/state.h), the server stops reading its input until the client reads. Its memory stays
# under 64 MiB, and nothing is lost: every request is answered once the client reads.
import os
import subprocess
import tempfile
import threading
import time

from server_lib import HERMES, check, run_tests

N = int(os.environ.get("HERMES_BACKPRESSURE_REQUESTS", "300000"))
BOUND_KIB = 64 * 1024


def sanitized(pid):
    """Built with AddressSanitizer? Its quarantine keeps freed memory, so RSS says nothing then."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


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


run_tests(globals(), per_test_timeout=120)
