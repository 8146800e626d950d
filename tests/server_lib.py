# tests/server_lib.py: a small, strict JSON-RPC client for the black-box tests of `hermes serve`.
# It spawns the real binary ($HERMES serve ...) in a fresh temporary workspace, frames requests in
# either framing, and checks every reply's framing byte for byte (a Content-Length header that is
# off by one, or a stray byte on stdout, fails the test).
import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

HERMES = os.environ.get("HERMES")
TOP_SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), ".."))


class ProtocolError(AssertionError):
    pass


def frame(body, framing):
    if isinstance(body, (dict, list)):
        body = json.dumps(body, separators=(",", ":"))
    if isinstance(body, str):
        body = body.encode("utf-8")
    if framing == "ndjson":
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    """One `hermes serve` process (or `hermes mcp`: command). framing: 'ndjson' or
    'content-length' (how we write and expect replies); args: extra command-line arguments; cwd:
    its working directory (default: a fresh temporary directory, also available as .root)."""

    def __init__(self, framing="ndjson", args=(), cwd=None, env=None, command="serve"):
        if not HERMES:
            raise RuntimeError("HERMES is not set (run through make check)")
        self.tmp = tempfile.mkdtemp(prefix="hermes-serve-test.")
        self.root = os.path.realpath(cwd or self.tmp)
        self.framing = framing
        self.buf = b""
        self.raw = []          # raw reply bodies, in arrival order
        self.pending = []      # parsed replies not yet taken
        self.next_id = 1
        self.stderr_path = os.path.join(self.tmp, ".stderr")
        self.stderr_file = open(self.stderr_path, "wb")
        # Its own TMPDIR unless the test gives one, removed by close(): close() kills Hermes, and
        # what its language servers leave in their TMPDIR (clangd's preambles) goes with it.
        self.own_tmpdir = None
        if env is None or "TMPDIR" not in env:
            self.own_tmpdir = tempfile.mkdtemp(prefix="hermes-serve-tmpdir.")
            env = dict(os.environ if env is None else env, TMPDIR=self.own_tmpdir)
        self.proc = subprocess.Popen([HERMES, command] + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     cwd=self.root, env=env)
        os.set_blocking(self.proc.stdout.fileno(), False)

    # ---- writing
    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, body):
        self.send_raw(frame(body, self.framing))

    def request(self, method, params=None, id=None, send=True):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        if send:
            self.send(msg)
        return id

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def close_stdin(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    # ---- reading
    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        r, _, _ = select.select([self.proc.stdout], [], [], remaining)
        if not r:
            return False
        # the descriptor, not the buffered file: its read() can keep the end of what it took in
        # a buffer of its own, which select() does not see
        try:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
        except (BlockingIOError, InterruptedError):
            return True
        if chunk == b"":
            return None  # EOF
        self.buf += chunk
        return True

    def _parse_one(self):
        """One complete reply from buf, or None."""
        if self.framing == "ndjson":
            nl = self.buf.find(b"\n")
            if nl < 0:
                return None
            body, self.buf = self.buf[:nl], self.buf[nl + 1:]
            if body.strip() != body or not body:
                raise ProtocolError("NDJSON reply with blank padding: %r" % body[:200])
        else:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buf) > 64 and not self.buf.startswith(b"Content-Length: "):
                    raise ProtocolError("reply does not start with a header: %r" % self.buf[:100])
                return None
            header = self.buf[:end].decode("ascii")
            if not header.startswith("Content-Length: ") or "\r\n" in header:
                raise ProtocolError("unexpected reply header %r" % header)
            n = int(header[len("Content-Length: "):])
            if len(self.buf) < end + 4 + n:
                return None
            body = self.buf[end + 4:end + 4 + n]
            self.buf = self.buf[end + 4 + n:]
        self.raw.append(body)
        try:
            return json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ProtocolError("reply is not UTF-8 JSON (%s): %r" % (e, body[:300]))

    def recv(self, timeout=10.0):
        """The next reply (parsed). Fails after timeout seconds."""
        if self.pending:
            return self.pending.pop(0)
        return self._recv_new(timeout)

    def _recv_new(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            msg = self._parse_one()
            if msg is not None:
                check_reply_shape(msg)
                return msg
            got = self._fill(deadline)
            if got is None:
                raise ProtocolError("server closed stdout while a reply was expected; buffer %r; "
                                    "stderr: %s" % (self.buf[:200], self.stderr()))
            if got is False:
                raise ProtocolError("no reply within %.1f s; stderr: %s" % (timeout, self.stderr()))

    def reply_to(self, id, timeout=10.0):
        """The reply with this id (others received meanwhile are kept for later recv())."""
        for i, m in enumerate(self.pending):
            if isinstance(m, dict) and m.get("id") == id and type(m.get("id")) == type(id):
                return self.pending.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            m = self._recv_new(max(0.01, deadline - time.monotonic()))
            if isinstance(m, dict) and m.get("id") == id and type(m.get("id")) == type(id):
                return m
            self.pending.append(m)

    def call(self, method, params=None, timeout=10.0):
        return self.reply_to(self.request(method, params), timeout)

    def expect_silence(self, seconds=0.3):
        """No reply arrives within seconds."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.pending:
                raise ProtocolError("unexpected reply %r" % self.pending[0])
            msg = self._parse_one()
            if msg is not None:
                raise ProtocolError("unexpected reply %r" % msg)
            if self._fill(deadline) is None:
                return

    def read_to_eof(self, timeout=10.0):
        """All replies until the server closes stdout."""
        out = list(self.pending)
        self.pending = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self._parse_one()
            if msg is not None:
                check_reply_shape(msg)
                out.append(msg)
                continue
            got = self._fill(deadline)
            if got is None:
                if self.buf:
                    raise ProtocolError("partial reply at EOF: %r" % self.buf[:200])
                return out
            if got is False:
                raise ProtocolError("stdout not closed within %.1f s" % timeout)

    def wait(self, timeout=10.0):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ProtocolError("hermes serve did not exit within %.1f s; stderr: %s"
                                % (timeout, self.stderr()))

    def stderr(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-2000:]
        except OSError:
            return ""

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except Exception:
                pass
        self.stderr_file.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.own_tmpdir:
            shutil.rmtree(self.own_tmpdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def wait_for_file(self, rel, timeout=10.0):
        """Waits until rel exists in the workspace (a child's "I have started" marker)."""
        deadline = time.monotonic() + timeout
        while not os.path.exists(os.path.join(self.root, rel)):
            if time.monotonic() > deadline:
                raise ProtocolError("%s did not appear within %.1f s; stderr: %s" % (rel, timeout, self.stderr()))
            time.sleep(0.01)

    def write_file(self, rel, data):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path


def check_reply_shape(msg):
    """Every reply is a JSON-RPC 2.0 response (or a batch of them), or a request or notification
    the server sends (MCP)."""
    items = msg if isinstance(msg, list) else [msg]
    if isinstance(msg, list) and not msg:
        raise ProtocolError("empty batch reply")
    for m in items:
        if isinstance(m, dict) and isinstance(m.get("method"), str) and not isinstance(msg, list):
            # a request or notification from the server (MCP: roots/list, notifications/progress)
            if m.get("jsonrpc") != "2.0" or not isinstance(m.get("params", {}), dict):
                raise ProtocolError("bad server-sent message: %r" % (m,))
            continue
        if not isinstance(m, dict) or m.get("jsonrpc") != "2.0" or "id" not in m:
            raise ProtocolError("not a JSON-RPC response: %r" % (m,))
        if ("result" in m) == ("error" in m):
            raise ProtocolError("a response needs exactly one of result and error: %r" % (m,))
        if "error" in m:
            e = m["error"]
            if not isinstance(e.get("code"), int) or not isinstance(e.get("message"), str) or not e["message"]:
                raise ProtocolError("bad error object: %r" % (m,))


def expect_error(reply, code, id="__any__"):
    if "error" not in reply:
        raise AssertionError("expected error %d, got %r" % (code, reply))
    if reply["error"]["code"] != code:
        raise AssertionError("expected error %d, got %r" % (code, reply))
    if id != "__any__" and (reply["id"] != id or type(reply["id"]) != type(id)):
        raise AssertionError("expected id %r, got %r" % (id, reply))
    return reply["error"]


def expect_result(reply, id="__any__"):
    if "result" not in reply:
        raise AssertionError("expected a result, got %r" % (reply,))
    if id != "__any__" and (reply["id"] != id or type(reply["id"]) != type(id)):
        raise AssertionError("expected id %r, got %r" % (id, reply))
    return reply["result"]


def sanitized(pid):
    """Built with AddressSanitizer? Its quarantine keeps freed memory, so RSS says nothing then."""
    with open("/proc/%d/maps" % pid) as f:
        return "libasan" in f.read()


def rss_kib(pid, field="VmRSS"):
    """The resident memory of a process (or another field of its status, such as VmHWM), in KiB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def pid_alive(pid):
    """Is the process running (not gone, not a zombie)?"""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone before the open, or during the read
        return False


def wait_gone(pid, within):
    """True once the process is gone (or a zombie), polling for at most within seconds."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < within:
        if not pid_alive(pid):
            return True
        time.sleep(0.02)
    return not pid_alive(pid)


def temp_dir(prefix):
    """A fresh temporary directory, removed with everything in it when the test program exits."""
    d = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return d


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on just now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def both_framings(fn):
    """Runs a test once per framing."""
    fn.framings = ("ndjson", "content-length")
    return fn


def started_then(seconds):
    """proc.run params for a child that creates 'started' and then sleeps."""
    return {"executable": "sh", "arguments": ["-c", "touch started; exec sleep %s" % seconds]}


def has_verb(name):
    with Server() as s:
        r = s.call("hermes/verbs")
        return any(v["name"] == name for v in r["result"]["verbs"])


def run_tests(namespace, per_test_timeout=60):
    """Runs every test_* function; prints one line each; exits 0, 1 (a failure) or 77 (skipped)."""
    tests = sorted((n, f) for n, f in namespace.items() if n.startswith("test_") and callable(f))
    only = os.environ.get("SERVER_TESTS")
    failed = 0
    ran = 0

    def alarm(signum, frame):
        raise TimeoutError("test took longer than %d s" % per_test_timeout)

    signal.signal(signal.SIGALRM, alarm)
    for name, fn in tests:
        if only and name not in only.split(","):
            continue
        for framing in getattr(fn, "framings", (None,)):
            label = name + ("[%s]" % framing if framing else "")
            signal.alarm(per_test_timeout)
            t0 = time.monotonic()
            try:
                result = fn(framing) if framing else fn()
                signal.alarm(0)
                if result == "skip":
                    print("SKIP: %s" % label)
                    continue
                ran += 1
                print("PASS: %s (%.2f s)" % (label, time.monotonic() - t0))
            except Exception:
                signal.alarm(0)
                ran += 1
                failed += 1
                print("FAIL: %s" % label)
                traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
    print("%d test(s), %d failed" % (ran, failed))
    sys.exit(1 if failed else (0 if ran else 77))
