# tests/mcp_socket_activation.py: `hermes mcp --listen=systemd`, the listening socket from systemd
# socket activation. With systemd-socket-activate (Debian's systemd package; those tests skip,
# saying so, without it): a TCP and a Unix socket are served, the address is printed, and a program
# Hermes runs sees neither LISTEN_* nor the socket. Without systemd, the socket handed over by this
# test the way systemd does (fd 3, LISTEN_PID, LISTEN_FDS): the first listening stream socket among
# several is taken, and every bad case (no variables, another pid, a count of 0 or not a number,
# fd 3 a file, a datagram socket, a connected socket, off loopback without a token) is a clear
# error, exit 2, before anything is served. And examples/hermes-mcp.socket and .service pass
# systemd-analyze verify with the sandboxing directives the README names.
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from server_lib import HERMES, check, free_port, run_tests

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}
ACTIVATE = shutil.which("systemd-socket-activate") or shutil.which("systemd-socket-activate",
                                                                      path="/usr/bin:/lib/systemd")

if os.environ.get("HERMES_HTTP", "yes") == "no":
    print("SKIP: hermes was configured --without-http")
    sys.exit(77)


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def proc_run(conn, ws, script):
    """proc_run of sh -c script through conn (workspace ws): its standard output."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "proc_run", "arguments": {"executable": "sh",
                                                         "arguments": ["-c", script]},
                       "_meta": META}}
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "proc_run"}
    conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=h)
    r = conn.getresponse()
    raw = r.read().decode()
    check(r.status == 200, ("proc_run", r.status, raw))
    if r.getheader("Content-Type", "").startswith("text/event-stream"):
        raw = [l[5:] for l in raw.splitlines() if l.startswith("data:")][-1]
    res = json.loads(raw)["result"]["structuredContent"]
    check(res.get("succeeded"), res)
    with open(os.path.join(ws, res["stdoutPath"])) as f:
        return f.read()


def wait_line(f, what, proc, within=15):
    """Waits until the file f holds what; returns its text."""
    deadline = time.monotonic() + within
    while True:
        with open(f, "rb") as fh:
            text = fh.read().decode(errors="replace")
        if what in text:
            return text
        check(proc.poll() is None and time.monotonic() < deadline,
              ("never printed %r" % what, proc.poll(), text))
        time.sleep(0.05)


def stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def activated(listen, extra=()):
    """systemd-socket-activate -l listen hermes mcp --listen=systemd: (proc, log path, workspace)."""
    d = tempfile.mkdtemp(prefix="hermes-sockact.")
    ws = os.path.join(d, "ws")
    os.mkdir(ws)
    log = os.path.join(d, "log")
    proc = subprocess.Popen([ACTIVATE, "-l", listen, HERMES, "mcp", "--listen=systemd",
                             "--instance=act", "--root", ws] + list(extra),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(log, "wb"))
    wait_line(log, "Listening on", proc)
    return proc, log, d


def served(conn, proc, log, d, url):
    """The first request starts hermes; it serves, prints url, and its programs inherit nothing."""
    out = proc_run(conn, os.path.join(d, "ws"), 'echo "pid=${LISTEN_PID-unset} fds=${LISTEN_FDS-unset}"; '
                         'if [ -e /proc/self/fd/3 ]; then echo fd3=open; else echo fd3=closed; fi')
    check("pid=unset fds=unset" in out, ("LISTEN_* reached a program", out))
    check("fd3=closed" in out, ("the socket reached a program", out))
    text = wait_line(log, "hermes mcp: listening on", proc)
    check("listening on " + url + " (from systemd)" in text, ("the address printed", text))


def test_tcp_from_systemd_socket_activate():
    if not ACTIVATE:
        print("  systemd-socket-activate is not installed (apt-get install systemd)")
        return "skip"
    port = free_port()
    proc, log, d = activated("127.0.0.1:%d" % port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        served(conn, proc, log, d, "http://127.0.0.1:%d/mcp" % port)
        # a second connection: the same process, still accepting
        conn2 = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        check(proc_run(conn2, os.path.join(d, "ws"), "echo again").strip() == "again", "second connection")
    finally:
        stop(proc)
        shutil.rmtree(d, ignore_errors=True)


def test_unix_from_systemd_socket_activate():
    if not ACTIVATE:
        print("  systemd-socket-activate is not installed (apt-get install systemd)")
        return "skip"
    d0 = tempfile.mkdtemp(prefix="hermes-sockact-u.")
    path = os.path.join(d0, "mcp.sock")
    proc, log, d = activated(path)
    try:
        served(UnixHTTPConnection(path), proc, log, d, "http://localhost/mcp on unix:" + path)
        stop(proc)
        # the path is systemd's: hermes, gone, has not removed it
        check(os.path.exists(path), "hermes removed systemd's socket")
    finally:
        stop(proc)
        shutil.rmtree(d, ignore_errors=True)
        shutil.rmtree(d0, ignore_errors=True)


def handed(socks, env=None, extra=(), within=10, extra_instance=True):
    """Runs hermes with socks as fds 3, 4, ... and LISTEN_PID/LISTEN_FDS as systemd sets them
    (env: overrides, a value None removes the variable). (proc, log path, dir)."""
    d = tempfile.mkdtemp(prefix="hermes-sockfd.")
    log = os.path.join(d, "log")
    fds = [s if isinstance(s, int) else s.fileno() for s in socks]
    # sh sets LISTEN_PID to its own pid, which exec keeps for hermes
    setvars = {"LISTEN_PID": "$$", "LISTEN_FDS": str(len(fds))}
    setvars.update(env or {})
    script = " ".join("%s=%s" % (k, v) for k, v in setvars.items() if v is not None)
    unset = " ".join(k for k, v in setvars.items() if v is None)
    cmd = ("unset LISTEN_PID LISTEN_FDS; " + ("unset %s; " % unset if unset else "") +
           (("export %s; " % script) if script else "") + 'exec "$@"')

    def place():
        # systemd's layout: the sockets from fd 3 on, in order, inheritable
        tmp = [os.dup(f) for f in fds]
        for i, f in enumerate(tmp):
            os.dup2(f, 3 + i)
            os.close(f)

    ws = os.path.join(d, "ws")
    os.mkdir(ws)
    proc = subprocess.Popen(["sh", "-c", cmd, "sh", HERMES, "mcp", "--listen=systemd",
                             "--root", ws] + (["--instance=fd"] if extra_instance else []) + list(extra),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=open(log, "wb"), preexec_fn=place, close_fds=False)
    return proc, log, d


def refused(socks, env, why):
    proc, log, d = handed(socks, env)
    try:
        rc = proc.wait(20)
        text = open(log, "rb").read().decode(errors="replace")
        check(rc == 2, ("exit status", rc, text))
        check(why in text, ("the error", why, text))
        check("listening on" not in text, text)
    finally:
        stop(proc)
        shutil.rmtree(d, ignore_errors=True)


def listening(family=socket.AF_INET, addr=("127.0.0.1", 0)):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.bind(addr)
    s.listen(16)
    return s


def test_no_variables():
    s = listening()
    refused([s], {"LISTEN_PID": None, "LISTEN_FDS": None}, "no socket was passed (LISTEN_FDS or LISTEN_PID is not set")
    refused([s], {"LISTEN_PID": None}, "LISTEN_FDS or LISTEN_PID is not set")


def test_another_pid():
    s = listening()
    refused([s], {"LISTEN_PID": "1"}, "LISTEN_PID is '1', not this process")
    refused([s], {"LISTEN_PID": "12x"}, "LISTEN_PID is '12x', not this process")


def test_bad_count():
    s = listening()
    refused([s], {"LISTEN_FDS": "0"}, "LISTEN_FDS is '0', not a count of 1 or more")
    refused([s], {"LISTEN_FDS": "one"}, "LISTEN_FDS is 'one', not a count of 1 or more")
    refused([s], {"LISTEN_FDS": "-1"}, "LISTEN_FDS is '-1', not a count of 1 or more")
    # a count past the open files limit is refused at once, not looped over
    refused([s], {"LISTEN_FDS": "2147483647"}, "LISTEN_FDS is '2147483647', not a count of 1 or more")


def test_not_a_listening_stream_socket():
    with open(os.devnull) as f:
        refused([f.fileno()], None, "descriptor 3 is not a socket")
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 0))
    refused([u], None, "descriptor 3 is not a stream socket")
    a, b = socket.socketpair()
    refused([a], None, "descriptor 3 is a connection, not a listening socket")
    # nothing at fd 3 although LISTEN_FDS says 1
    refused([], {"LISTEN_FDS": "1"}, "descriptor 3 is not open")
    # several, none usable: the first one's reason, and that the others are not either
    refused([u, a], None, "no listening stream socket among the 2 passed: descriptor 3 is not a "
                          "stream socket (Accept=no, ListenStream= in the .socket unit), nor are the other 1 passed")


def test_off_loopback_needs_a_token():
    s = listening(addr=("0.0.0.0", 0))
    refused([s], None, "not on a loopback address: give bearer tokens")


def test_first_listening_stream_socket_of_several():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", 0))
    s = listening()
    port = s.getsockname()[1]
    proc, log, d = handed([u, s])
    try:
        text = wait_line(log, "hermes mcp: listening on", proc)
        check("listening on http://127.0.0.1:%d/mcp (from systemd)" % port in text, text)
        s.close()  # hermes holds its own copy
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        out = proc_run(conn, os.path.join(d, "ws"), 'echo "fds=${LISTEN_FDS-unset}"; for f in 3 4; do '
                             '[ -e /proc/self/fd/$f ] && echo "open $f"; done; true')
        check(out.strip() == "fds=unset", ("passed descriptors reached a program", out))
    finally:
        stop(proc)
        shutil.rmtree(d, ignore_errors=True)


def test_default_instance_names_the_port():
    """Without --instance, the handles name the host and the passed socket's port."""
    s = listening()
    port = s.getsockname()[1]
    proc, log, d = handed([s], extra_instance=False)
    try:
        wait_line(log, "hermes mcp: listening on", proc)
        s.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "proc_start", "arguments": {"executable": "cat", "waitSeconds": 0},
                           "_meta": META}}
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "proc_start"}
        conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=h)
        r = conn.getresponse()
        raw = r.read().decode()
        if r.getheader("Content-Type", "").startswith("text/event-stream"):
            raw = [l[5:] for l in raw.splitlines() if l.startswith("data:")][-1]
        handle = json.loads(raw)["result"]["structuredContent"]["id"]
        check(handle.split(".")[0].endswith("-%d" % port), ("the default instance", handle, port))
    finally:
        stop(proc)
        shutil.rmtree(d, ignore_errors=True)


def test_example_units_verify():
    """examples/hermes-mcp.socket and .service pass systemd-analyze verify (ExecStart pointed at
    this hermes, which must exist for it), and keep the directives the README promises."""
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        print("  systemd-analyze is not installed (apt-get install systemd)")
        return "skip"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
    d = tempfile.mkdtemp(prefix="hermes-units.")
    try:
        for unit in ("hermes-mcp.socket", "hermes-mcp.service"):
            with open(os.path.join(src, unit)) as f:
                text = f.read()
            if unit.endswith(".service"):
                check("/usr/local/bin/hermes mcp --listen=systemd" in text, "ExecStart")
                for directive in ("ProtectSystem=strict", "ReadWritePaths=", "ProtectHome=yes",
                                  "PrivateTmp=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=\n",
                                  "RestrictAddressFamilies=", "SystemCallArchitectures=native",
                                  "LockPersonality=yes", "RestrictNamespaces=yes", "UMask=0077",
                                  "MemoryMax=", "TasksMax=", "Delegate=yes"):
                    check(directive in text, ("missing", directive))
                check("\nMemoryDenyWriteExecute" not in text, "MemoryDenyWriteExecute breaks PCRE2's JIT")
                text = text.replace("/usr/local/bin/hermes", os.path.abspath(HERMES))
            else:
                check("Accept=no" in text, "Accept=no")
            with open(os.path.join(d, unit), "w") as f:
                f.write(text)
        r = subprocess.run([analyze, "verify", "--man=no", os.path.join(d, "hermes-mcp.socket"),
                            os.path.join(d, "hermes-mcp.service")], capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 0 and not r.stderr.strip(), ("systemd-analyze verify", r.returncode, r.stderr))
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_tests(globals(), per_test_timeout=120)
