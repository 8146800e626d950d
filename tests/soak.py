#!/usr/bin/env python3
# tests/soak.py: many clients, each with its own `hermes serve` on one shared workspace, send a
# mix of verbs (edits of one shared file, whole-file writes, reads, searches, listings, programs)
# several at a time, while the servers are killed with SIGKILL at random and restarted. Then it
# checks that nothing was lost or left half-done: every edit reported as a success is in the
# shared file exactly once (an unanswered one at most once, a failed one never), every client's own
# file is whole and at least as new as its last reported write, no program a killed server ran is
# still alive, no temporary file of a live process is left (and those of killed ones go with the
# next sweep), and no server's memory passed the bound. Not part of `make check` (it runs for
# minutes); .ci/run runs it. Usage: HERMES=./hermes tests/soak.py [--seconds N] [--clients N]
# [--seed N] [--keep]. Exit status 0 when every check holds.
import argparse
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERMES = os.environ.get("HERMES", "./hermes")
ANCHORS = 16
RSS_BOUND_KIB = 128 * 1024
IN_FLIGHT = 4
MARK = "37.%06d"  # the sleep of proc.run: "sleep 37.<client><n>", found in /proc afterwards

ap = argparse.ArgumentParser(description="soak test of hermes serve under kill -9")
ap.add_argument("--seconds", type=float, default=150)
ap.add_argument("--clients", type=int, default=6)
ap.add_argument("--kill-every", type=float, default=1.5, help="mean seconds between two kills")
ap.add_argument("--seed", type=int, default=int(os.environ.get("HERMES_TEST_SEED", random.randrange(1 << 30))))
ap.add_argument("--keep", action="store_true", help="keep the workspace")
opts = ap.parse_args()
print("soak: seed %d (--seed %d replays the choices, not the timing), %d clients, %.0f s"
      % (opts.seed, opts.seed, opts.clients, opts.seconds), flush=True)

failures = []
lock = threading.Lock()
stats = {"requests": 0, "answered": 0, "unanswered": 0, "kills": 0, "restarts": 0,
         "edits_ok": 0, "edits_failed": 0, "writes_ok": 0, "big_writes": 0, "runs": 0, "peak_rss_kib": 0}


def fail(msg):
    with lock:
        failures.append(msg)
    print("FAIL: " + msg, flush=True)


def count(key, n=1):
    with lock:
        stats[key] += n


def sanitized(pid):
    try:
        with open("/proc/%d/maps" % pid) as f:
            return "libasan" in f.read()
    except OSError:
        return False


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


root = os.path.realpath(tempfile.mkdtemp(prefix="hermes-soak."))
ws = os.path.join(root, "ws")
os.mkdir(ws)
with open(os.path.join(ws, "shared.txt"), "w") as f:
    f.write("".join("anchor-%02d\n" % i for i in range(ANCHORS)))
with open(os.path.join(ws, "big.txt"), "w") as f:  # read whole now and then: 4 MB
    f.write("".join("line %07d of the big file, read whole by fs.readFile\n" % i for i in range(80000)))
os.mkdir(os.path.join(ws, "src"))
for i in range(40):
    with open(os.path.join(ws, "src", "f%02d.c" % i), "w") as f:
        f.write("".join("int f%d_%d(void) { return %d; }\n" % (i, j, j) for j in range(200)))


PAD = "x" * 200 + "\n"


def own_content(client, version, pad):
    """A client's own file at a version: pad lines of padding (a big one takes a while to write,
    and the killer aims at those), its lines, then a line with their count and hash, so that a
    half-written file shows."""
    body = PAD * pad + "".join("client %d line %d\n" % (client, v) for v in range(version))
    return body + "end %d %d %s\n" % (version, pad, hashlib.sha1(body.encode()).hexdigest())


def own_version(text):
    """The version of a whole own file, or None if it is not whole."""
    m = re.search(r"end (\d+) (\d+) ([0-9a-f]{40})\n\Z", text)
    if not m:
        return None
    body = text[:m.start()]
    if hashlib.sha1(body.encode()).hexdigest() != m.group(3) or \
            body.count("\n") != int(m.group(1)) + int(m.group(2)):
        return None
    return int(m.group(1))



def thread_states(pid):
    """What each thread of a process is doing (state, system call, kernel wait), for a report."""
    out = []
    try:
        for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
            base = "/proc/%d/task/%s/" % (pid, tid)
            parts = []
            for name in ("stat", "syscall", "wchan"):
                try:
                    with open(base + name) as f:
                        text = f.read().strip()
                except OSError:
                    continue
                if name == "stat":
                    text = text[text.rindex(")") + 2:].split()[0]
                elif name == "syscall":
                    text = "syscall " + text.split()[0]
                parts.append(text)
            out.append("%s: %s" % (tid, " ".join(parts)))
    except OSError as e:
        out.append(str(e))
    return "; ".join(out)

class Client(threading.Thread):
    def __init__(self, n, seed):
        super().__init__(daemon=True)
        self.n = n
        self.rng = random.Random(seed)
        self.proc = None
        self.proc_lock = threading.Lock()
        self.next_id = 1
        self.seq = 0
        self.edits = {}          # line -> True (succeeded) / False (failed) / None (no answer)
        self.version = 0         # of the own file: the last write that succeeded
        self.own = "own%d.txt" % n
        self.stop = False
        self.pids = []
        self.big_in_flight = False  # a write of several megabytes: what the killer aims at

    def start_server(self):
        p = subprocess.Popen([HERMES, "serve", "--root", ws, "--grace-seconds", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        os.set_blocking(p.stdout.fileno(), False)
        os.set_blocking(p.stdin.fileno(), False)
        with self.proc_lock:
            self.proc = p
        self.pids.append(p.pid)
        self.buf = b""

    def kill(self):
        with self.proc_lock:
            p = self.proc
        if p and p.poll() is None:
            p.kill()
            return True
        return False

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        msg = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return i, msg.encode() + b"\n"

    def choose(self, own_busy):
        """One request: (id, bytes, what) where what says how to judge the reply."""
        r = self.rng.random()
        self.seq += 1
        line = "c%d-e%d" % (self.n, self.seq)
        if r < 0.30:
            a = self.rng.randrange(ANCHORS)
            p = {"path": "shared.txt", "edits": [{"oldText": "anchor-%02d\n" % a,
                                                  "newText": "anchor-%02d\n%s\n" % (a, line)}]}
            return self.request("fs.editFile", p) + (("edit", line),)
        if r < 0.40:
            p = {"path": "shared.txt", "startLine": self.rng.randrange(1, ANCHORS + 1),
                 "content": line + "\n"}
            return self.request("fs.writeRange", p) + (("edit", line),)
        if r < 0.52 and not own_busy:
            v = self.version + 1
            pad = 40000 if self.rng.random() < 0.1 else 300  # 8 MB or 60 KB
            p = {"path": self.own, "content": own_content(self.n, v, pad)}
            return self.request("fs.writeFile", p) + (("own", v, pad),)
        if r < 0.54:
            self.seq += 1
            p = {"executable": "sleep", "arguments": [MARK % (self.n * 100000 + self.seq % 100000)],
                 "timeoutSeconds": 1}
            return self.request("proc.run", p) + (("run", None),)
        if r < 0.60:
            return self.request("proc.run", {"executable": "echo", "arguments": [line]}) + (("run", None),)
        reads = [("fs.readRange", {"path": "shared.txt", "startLine": -5, "endLine": -1}),
                 ("fs.readFile", {"path": "shared.txt"}),
                 ("fs.stat", {"path": "shared.txt"}),
                 ("fs.lineCount", {"path": "shared.txt"}),
                 ("fs.listDir", {"path": "src"}),
                 ("fs.search", {"pattern": "return 1[0-9];", "path": "src"}),
                 ("fs.glob", {"pattern": "src/*.c"}),
                 ("fs.exists", {"path": self.own}),
                 ("fs.readFile", {"path": "big.txt"})]
        m, p = self.rng.choice(reads)
        return self.request(m, p) + (("read", m),)

    def judge(self, what, reply):
        kind, arg = what[0], what[1]
        if "error" in reply:
            fail("client %d: %s answered a JSON-RPC error: %s" % (self.n, kind, reply["error"]))
            return
        res = reply["result"]
        ok = res.get("succeeded") is True
        if kind == "edit":
            self.edits[arg] = ok
            count("edits_ok" if ok else "edits_failed")
            if not ok:
                fail("client %d: edit %s failed: %s" % (self.n, arg, res.get("errorMessage")))
        elif kind == "own":
            if not ok:
                fail("client %d: writeFile failed: %s" % (self.n, res.get("errorMessage")))
            elif arg > self.version:
                self.version = arg
                count("writes_ok")
                count("big_writes", what[2] > 1000)
        elif kind == "run":
            count("runs")
            if not ok and res.get("errorCode") != "Timeout":
                fail("client %d: proc.run failed: %s" % (self.n, res.get("errorMessage")))
        elif not ok:
            fail("client %d: %s failed: %s" % (self.n, arg, res.get("errorMessage")))

    def exchange(self, data, pending, deadline):
        """Writes data while reading replies (as a client must: a server that waits for its
        replies to be read stops reading), until none is pending; False if the server died
        first."""
        p = self.proc
        out = p.stdin.fileno()
        while pending:
            left = deadline - time.time()
            if left <= 0:
                fail("client %d: no reply in 60 s (ids %s: %s); the server's threads: %s"
                     % (self.n, sorted(pending), [pending[k][:2] for k in sorted(pending)],
                        thread_states(p.pid)))
                return False
            r, w, _ = select.select([p.stdout], [out] if data else [], [], min(left, 1.0))
            if w:
                try:
                    data = data[os.write(out, data[:1 << 20]):]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    return False
            if not r:
                continue
            try:
                # the descriptor, not the buffered file: its read() can keep the end of what it
                # took in a buffer of its own, which select() does not see (a reply waiting there
                # while select() waits for more: a lost reply that the server did send)
                chunk = os.read(p.stdout.fileno(), 1 << 16)
            except (BlockingIOError, InterruptedError):
                continue
            if not chunk:
                return False
            self.buf += chunk
            while b"\n" in self.buf:
                raw, self.buf = self.buf.split(b"\n", 1)
                reply = json.loads(raw)
                what = pending.pop(reply.get("id"), None)
                if what is None:
                    fail("client %d: a reply to no pending request: %r" % (self.n, raw[:200]))
                    continue
                count("answered")
                self.judge(what, reply)
        return True

    def resync(self, pending):
        """After a kill: what was not answered is unknown; the own file is whatever is there."""
        for what in pending.values():
            count("unanswered")
            if what[0] == "edit":
                self.edits[what[1]] = None
        path = os.path.join(ws, self.own)
        if os.path.exists(path):
            with open(path) as f:
                v = own_version(f.read())
            if v is None:
                fail("client %d: %s is not whole after a kill" % (self.n, self.own))
            elif v < self.version:
                fail("client %d: %s holds version %d after a kill, but %d was reported written"
                     % (self.n, self.own, v, self.version))
            else:
                self.version = v

    def run(self):
        self.start_server()
        while not self.stop:
            pending = {}
            data = b""
            for _ in range(self.rng.randrange(1, IN_FLIGHT + 1)):
                own_busy = any(w[0] == "own" for w in pending.values())
                i, msg, what = self.choose(own_busy)
                pending[i] = what
                data += msg
                self.big_in_flight |= what[0] == "own" and what[2] > 1000
            count("requests", len(pending))
            alive = self.exchange(data, pending, time.time() + 60)
            self.big_in_flight = False
            if not alive:
                self.kill()  # (a server that stopped answering is a failure already)
                self.proc.wait()
                self.resync(pending)
                self.start_server()
                count("restarts")
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            status = self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.kill()
            status = "none: still running 60 s after the end of its input"
        if status != 0:
            fail("client %d: the server's last exit status was %s" % (self.n, status))


def thread_failed(args):
    fail("a client's thread raised %s: %s" % (args.exc_type.__name__, args.exc_value))
    traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)


threading.excepthook = thread_failed


clients = [Client(i, opts.seed * 1000 + i) for i in range(opts.clients)]
for c in clients:
    c.start()
rng = random.Random(opts.seed)
end = time.time() + opts.seconds
asan = False
next_kill = time.time() + rng.expovariate(1 / opts.kill_every)
while time.time() < end and not failures:
    time.sleep(0.1)
    for c in clients:
        p = c.proc
        if p and p.poll() is None:
            asan = asan or sanitized(p.pid)
            k = rss_kib(p.pid)
            with lock:
                stats["peak_rss_kib"] = max(stats["peak_rss_kib"], k)
    if time.time() >= next_kill:
        # half the time at a server writing a big file, if one is: to land between the
        # temporary file and the rename
        busy = [c for c in clients if c.big_in_flight]
        if rng.choice(busy if busy and rng.random() < 0.5 else clients).kill():
            count("kills")
        next_kill = time.time() + rng.expovariate(1 / opts.kill_every)
for c in clients:
    c.stop = True
for c in clients:
    c.join(90)
    if c.is_alive():
        fail("client %d did not finish" % c.n)

# ---- afterwards --------------------------------------------------------------------------------
with open(os.path.join(ws, "shared.txt")) as f:
    shared = f.read().split("\n")
seen = {}
for line in shared:
    seen[line] = seen.get(line, 0) + 1
for a in range(ANCHORS):
    if seen.get("anchor-%02d" % a) != 1:
        fail("anchor-%02d is in shared.txt %d times" % (a, seen.get("anchor-%02d" % a, 0)))
lost = twice = 0
for c in clients:
    for line, ok in c.edits.items():
        n = seen.get(line, 0)
        if ok is True and n != 1:
            lost += 1
            if lost <= 5:
                fail("edit %s was reported a success and is in shared.txt %d times" % (line, n))
        elif ok is False and n != 0:
            fail("edit %s was reported a failure and is in shared.txt %d times" % (line, n))
        elif ok is None and n > 1:
            twice += 1
            fail("edit %s (unanswered) is in shared.txt %d times" % (line, n))
    path = os.path.join(ws, c.own)
    if c.version:
        with open(path) as f:
            v = own_version(f.read())
        if v is None or v < c.version:
            fail("%s: version %r, but %d was reported written" % (c.own, v, c.version))
if lost:
    fail("%d edits reported as successes are not in shared.txt" % lost)

# no program of a killed server is left (their end is asynchronous: give them a moment)
left = []
for _ in range(50):
    left = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read().split(b"\0")
            except OSError:
                continue
            if (len(cmd) > 1 and cmd[0].endswith(b"sleep") and cmd[1].startswith(b"37.")) or \
                    any(ws.encode() in a for a in cmd):
                left.append((pid, b" ".join(cmd).decode(errors="replace")))
    if not left:
        break
    time.sleep(0.1)
for pid, cmd in left:
    fail("process %s is left: %s" % (pid, cmd))

# temporary files: only those of killed servers, and the next sweep removes them (the sweep
# spares a minute-old file, which a process this one cannot see may be writing: age them)
tmps = []
for d, _, names in os.walk(ws):
    tmps += [os.path.join(d, n) for n in names if n.endswith(".hermes-tmp")]
live = set()
for c in clients:
    live.update(p for p in c.pids if os.path.exists("/proc/%d" % p))
for t in tmps:
    m = re.search(r"\.(\d+)\.[0-9a-f]{8}\.hermes-tmp$", t)
    if not m or int(m.group(1)) in live:
        fail("a temporary file of a live process is left: %s" % t)
    os.utime(t, (time.time() - 3600, time.time() - 3600))
for d in sorted({os.path.dirname(t) for t in tmps}):
    rel = os.path.relpath(os.path.join(d, ".soak-sweep"), ws)
    env = json.dumps({"verb": "fs.writeFile", "arguments": {"path": rel, "content": "x"}})
    subprocess.run([HERMES, "exec", "--root", ws], input=env.encode(), stdout=subprocess.DEVNULL)
after = [t for t in tmps if os.path.exists(t)]
for t in after:
    fail("a temporary file of a killed server was not swept: %s" % t)

if not asan and stats["peak_rss_kib"] >= RSS_BOUND_KIB:
    fail("a server's RSS reached %.1f MiB (bound %d MiB)" % (stats["peak_rss_kib"] / 1024,
                                                              RSS_BOUND_KIB // 1024))
edits_unknown = sum(1 for c in clients for ok in c.edits.values() if ok is None)
edits_unknown_in = sum(1 for c in clients for line, ok in c.edits.items()
                       if ok is None and seen.get(line, 0))
print("soak: %d requests, %d answered, %d unanswered (server killed); %d kills, %d restarts"
      % (stats["requests"], stats["answered"], stats["unanswered"], stats["kills"], stats["restarts"]))
print("soak: %d edits of shared.txt reported done, all in it once: %s; %d failed; %d unanswered "
      "(%d of them applied); %d whole-file writes (%d of 8 MB); %d programs; %d temporary files of killed "
      "servers, all swept; peak RSS %.1f MiB%s"
      % (stats["edits_ok"], "yes" if not lost else "NO", stats["edits_failed"], edits_unknown,
         edits_unknown_in, stats["writes_ok"], stats["big_writes"], stats["runs"], len(tmps),
         stats["peak_rss_kib"] / 1024, " (AddressSanitizer: not checked)" if asan else ""))
if opts.keep:
    print("soak: workspace kept in " + ws)
else:
    shutil.rmtree(root, ignore_errors=True)
print("soak: %s" % ("FAILED (%d)" % len(failures) if failures else "passed"))
sys.exit(1 if failures else 0)
