# tests/server_flood.py: a flood of a million small requests (fs.exists) from a client that reads
# nothing for two seconds, then reads everything, keeps hermes serve under 64 MiB of peak RSS
# (VmHWM: the kernel's own peak, the reading included), every request answered exactly once: alone,
# with the machine loaded, and three floods at once with malloc's arenas on huge pages (what
# transparent huge pages set to "always" do to them). The reading thread never waits for the
# client: it reads past what the output pipe holds, up to the bounds (src/session/session.h), and
# those are what hold the memory (PROTOCOL.md, Memory).
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

from server_lib import HERMES, check, rss_kib, run_tests, sanitized

N = int(os.environ.get("HERMES_FLOOD_REQUESTS", "1000000"))
BOUND_KIB = 64 * 1024
# What the output pipe holds (64 KiB) is under a thousand 60-byte replies; the replies' bound lets
# tens of thousands wait. A reader that blocked writing to the client (it did) stopped there.
READ_PAST_PIPE = 5000


class Flood:
    """n fs.exists requests written by a thread, 1000 a write; nothing read for two seconds."""

    def __init__(self, n, env=None):
        self.n = n
        self.root = tempfile.TemporaryDirectory(prefix="hermes-flood.")
        self.p = subprocess.Popen([HERMES, "serve", "--root", self.root.name],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.sent = [0]
        self.writer = threading.Thread(target=self.write, daemon=True)
        self.writer.start()
        # VmHWM, the kernel's own peak, read along the whole run (the reading included) until
        # the server is gone (wait4's ru_maxrss would not do: it counts the forked test process
        # from before the exec)
        self.peak = 0
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self.sample, daemon=True)
        self.sampler.start()

    def sample(self):
        while not self.done.is_set():
            try:
                self.peak = max(self.peak, rss_kib(self.p.pid, "VmHWM"))
            except (OSError, ValueError):
                break
            time.sleep(0.01)

    def write(self):
        line = b'{"jsonrpc":"2.0","id":%d,"method":"fs.exists","params":{"path":"x"}}\n'
        for start in range(0, self.n, 1000):
            self.p.stdin.write(b"".join(line % i for i in range(start, min(self.n, start + 1000))))
            self.sent[0] = min(self.n, start + 1000)
        self.p.stdin.close()

    def finish(self, unread_s):
        """Reads everything; checks every reply came once and the peak stayed under the bound."""
        p = self.p
        asan = sanitized(p.pid)
        read_then = self.sent[0]
        quiet = rss_kib(p.pid, "VmHWM")
        chunks = []
        while True:
            chunk = p.stdout.read1(1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        self.done.set()
        self.sampler.join()
        peak = self.peak
        self.writer.join(10)
        check(p.wait(30) == 0, "exit status %r" % p.returncode)
        self.root.cleanup()
        data = b"".join(chunks)
        ids = sorted(int(m) for m in re.findall(rb'"id":(\d+)', data))
        check(ids == list(range(self.n)), "%d replies for %d requests, not one for each"
              % (len(ids), self.n))
        check(read_then < self.n, "the server read all %d requests without the client reading"
              % self.n)
        check(read_then >= READ_PAST_PIPE, "the server read only %d requests in %.0f s while "
              "the client did not read: it waits for the client instead of reading up to its "
              "bounds (and sees no signal or cancel meanwhile)" % (read_then, unread_s))
        if not asan:
            check(peak < BOUND_KIB, "peak RSS %.1f MiB (%.1f MiB while the client did not read)"
                  % (peak / 1024, quiet / 1024))
        return "peak RSS %.1f MiB (%.1f MiB with the client not reading, %d requests sent by " \
            "then); %d requests answered once each" % (peak / 1024, quiet / 1024, read_then, self.n)


def floods(count=1, load=0, env=None):
    """count floods at once; load: busy processes that load the machine meanwhile (the figure
    used to depend on timing)."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    try:
        fl = [Flood(N, env) for _ in range(count)]
        time.sleep(2)  # of not reading
        results = [None] * count
        errors = []

        def drain(i):
            try:
                results[i] = fl[i].finish(2)
            except BaseException as e:  # check() raises; report it from the main thread
                errors.append(e)

        threads = [threading.Thread(target=drain, args=(i,)) for i in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        if errors:
            raise errors[0]
        for r in results:
            print("fs.exists flood: " + r)
    finally:
        for b in busy:
            b.kill()
            b.wait()


def test_a_million_requests_stay_under_the_bound():
    floods()


def test_a_million_requests_while_the_machine_is_loaded():
    floods(load=2)


def test_three_floods_at_once_with_arenas_on_huge_pages():
    # glibc.malloc.hugetlb=1 advises malloc's heaps MADV_HUGEPAGE: what THP=always does to them,
    # where a block left alive pins 2 MiB
    env = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=1")
    floods(count=3, env=env)


run_tests(globals(), per_test_timeout=120)
