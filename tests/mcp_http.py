# tests/mcp_http.py: `hermes mcp --listen` (Streamable HTTP) byte by byte, with a raw client: every
# MUST of the transport (Origin 403, bearer token 401, header/body mismatch 400 -32020, 405, 413,
# notifications 202, SSE only when notifications come before the result, closing the stream
# cancels), both eras on one endpoint (2025 sessions with Mcp-Session-Id, none in 2026), the Unix
# socket, the slow client that must not hold a slot, clients past --max-connections waiting, and
# the memory bound held by the server as a whole, however many 2025 sessions its clients open.
# Skipped where hermes was built without HTTP.
import base64
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
import threading
import time

from server_lib import HERMES, check, pid_alive, rss_kib, run_tests, sanitized

if os.environ.get("HERMES_HTTP") == "no":
    print("SKIP: hermes was configured --without-http (no hermes mcp --listen)")
    sys.exit(77)

MODERN = "2026-07-28"
PV = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"


# The tools whose argument names server-held state (its schema's "x-mcp-header": "Handle").
HANDLE_ARGS = {"proc_output": "id", "proc_write": "id", "proc_stop": "id", "fs_changes": "handle",
               "fs_unwatch": "handle"}


class Http:
    """One `hermes mcp --listen=127.0.0.1:0` (or a Unix socket) in a fresh workspace."""

    def __init__(self, args=(), unix=False, env=None):
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="hermes-mcp-http."))
        self.unix = os.path.join(self.root, ".sock") if unix else None
        listen = "unix:" + self.unix if unix else "127.0.0.1:0"
        self.errf = open(os.path.join(self.root, ".stderr"), "w+b")
        self.proc = subprocess.Popen([HERMES, "mcp", "--listen=" + listen, "--root", self.root]
                                     + list(args), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.errf, env=env)
        deadline = time.monotonic() + 5
        while True:
            m = re.search(r"listening on (http://(\S+?)(/\S*))", self.stderr())
            if m:
                self.url, self.hostport, self.path = m.group(1), m.group(2), m.group(3)
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("hermes mcp --listen did not start: " + self.stderr())
            time.sleep(0.01)

    def stderr(self):
        self.errf.seek(0)
        return self.errf.read().decode("utf-8", "replace")

    def conn(self, timeout=10):
        if self.unix:
            c = http.client.HTTPConnection("localhost", timeout=timeout)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(timeout)
            s.connect(self.unix)
            c.sock = s
            return c
        host, port = self.hostport.rsplit(":", 1)
        return http.client.HTTPConnection(host, int(port), timeout=timeout)

    def raw(self):
        """A plain socket to the server."""
        if self.unix:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(self.unix)
        else:
            host, port = self.hostport.rsplit(":", 1)
            s = socket.create_connection((host, int(port)))
        return s

    def post(self, body, headers=None, conn=None, path=None, method="POST"):
        """(status, headers, parsed body or raw bytes)."""
        c = conn or self.conn()
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        h.update(headers or {})
        h = {k: v for k, v in h.items() if v is not None}
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        c.request(method, path or self.path, body=data, headers=h)
        r = c.getresponse()
        raw = r.read()
        ctype = r.getheader("Content-Type", "")
        out = raw
        if ctype.startswith("application/json") and raw:
            out = json.loads(raw)
        elif ctype.startswith("text/event-stream"):
            out = sse_events(raw)
        if conn is None:
            c.close()
        return r.status, r, out

    def modern(self, method, params=None, id=1, headers=None, **kw):
        p = dict(params or {})
        p["_meta"] = dict({PV: MODERN, CAPS: {}}, **p.get("_meta", {}))
        h = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
        if method == "tools/call" and "name" in p:
            h["Mcp-Name"] = p["name"]
            # as a real client mirrors the argument the tool's schema marks x-mcp-header
            handle = HANDLE_ARGS.get(p["name"])
            if handle and handle in (p.get("arguments") or {}):
                h["Mcp-Param-Handle"] = p["arguments"][handle]
        h.update(headers or {})
        return self.post({"jsonrpc": "2.0", "id": id, "method": method, "params": p}, h, **kw)

    def close(self):
        """Stops the server (SIGTERM) and checks it ended well: status 0, no sanitizer report."""
        try:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    raise AssertionError("hermes mcp --listen did not stop on SIGTERM")
            err = self.stderr()
            check(self.proc.returncode == 0 and "Sanitizer" not in err and "runtime error" not in err,
                  "hermes mcp --listen ended with status %s: %s" % (self.proc.returncode, err[-3000:]))
        finally:
            self.errf.close()
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            self.close()
        else:  # the test failed already: stop the server, say nothing more
            try:
                self.close()
            except AssertionError:
                pass


def sse_events(raw):
    """The data of each event of an SSE body, parsed."""
    out = []
    for block in raw.decode().replace("\r\n", "\n").split("\n\n"):
        data = [l[5:].lstrip(" ") for l in block.split("\n") if l.startswith("data:")]
        if data:
            out.append(json.loads("\n".join(data)))
    return out


def error_of(status, response, body, want_status, code):
    check(status == want_status, (status, body))
    check(isinstance(body, dict) and body.get("error", {}).get("code") == code, (status, body))
    return body["error"]


def test_modern_request_and_notification():
    with Http() as h:
        st, r, body = h.modern("server/discover")
        check(st == 200 and r.getheader("Content-Type").startswith("application/json"), (st, body))
        check(body["result"]["resultType"] == "complete" and MODERN in body["result"]["supportedVersions"], body)
        check(r.getheader("Mcp-Session-Id") is None, "a session id in the 2026 era")
        st, r, body = h.modern("tools/call", {"name": "fs_exists", "arguments": {"path": "."}})
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True, body)
        # a notification: 202, no body
        st, r, body = h.post({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": 99, "_meta": {PV: MODERN, CAPS: {}}}},
                             {"MCP-Protocol-Version": MODERN, "Mcp-Method": "notifications/cancelled"})
        check(st == 202 and body == b"", (st, body))
        # keep-alive: many requests on one connection
        c = h.conn()
        for i in range(20):
            st, r, body = h.modern("tools/call", {"name": "fs_exists", "arguments": {"path": "."}}, id=i, conn=c)
            check(st == 200 and body["id"] == i, body)
        c.close()


def test_errors_and_their_status():
    with Http() as h:
        error_of(*h.modern("no/such/method"), 404, -32601)
        e = error_of(*h.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                              "params": {"_meta": {PV: "1900-01-01", CAPS: {}}}},
                             {"MCP-Protocol-Version": "1900-01-01", "Mcp-Method": "tools/list"}), 400, -32022)
        check(MODERN in e["data"]["supported"], e)
        error_of(*h.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {PV: MODERN}}},
                         {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}), 400, -32602)
        error_of(*h.post(b"{not json", {"MCP-Protocol-Version": MODERN}), 400, -32700)
        error_of(*h.post([{"jsonrpc": "2.0", "id": 1, "method": "server/discover"}],
                         {"MCP-Protocol-Version": MODERN}), 400, -32600)
        # an unknown tool is -32602, and a result with isError is still 200
        error_of(*h.modern("tools/call", {"name": "fs_teleport", "arguments": {}}), 400, -32602)
        st, r, body = h.modern("tools/call", {"name": "fs_readFile", "arguments": {"path": "nope"}})
        check(st == 200 and body["result"]["isError"] is True, body)
        # content type
        st, r, body = h.post(b'{"jsonrpc":"2.0","id":1,"method":"server/discover"}',
                             {"Content-Type": "text/plain", "MCP-Protocol-Version": MODERN})
        check(st == 415, (st, body))
        # another path
        st, r, body = h.modern("server/discover", path="/other")
        check(st == 404, (st, body))


def test_header_mismatch():
    with Http() as h:
        call = {"name": "fs_exists", "arguments": {"path": "."}}
        for headers in [{"MCP-Protocol-Version": "2025-11-25"},     # header and _meta disagree
                        {"MCP-Protocol-Version": None},             # missing
                        {"Mcp-Method": "tools/list"},               # not the body's method
                        {"Mcp-Method": None},
                        {"Mcp-Name": "fs_readFile"},                # not the body's name
                        {"Mcp-Name": None},
                        {"Mcp-Name": "=?base64?" + base64.b64encode(b"fs_readFile").decode() + "?="},
                        {"Mcp-Name": "=?base64?not base64!?="}]:
            e = error_of(*h.modern("tools/call", call, headers=headers), 400, -32020)
            check(e["message"].startswith("Header mismatch") or "header" in e["message"].lower(), e)
        # the base64 form of the right name is the right name
        st, r, body = h.modern("tools/call", call, headers={
            "Mcp-Name": "=?base64?" + base64.b64encode(b"fs_exists").decode() + "?="})
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True, (st, body))
        # header names are case-insensitive
        st, r, body = h.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                              "params": {"_meta": {PV: MODERN, CAPS: {}}}},
                             {"mcp-protocol-version": MODERN, "MCP-METHOD": "tools/list"})
        check(st == 200, (st, body))


def test_origin():
    with Http(args=["--allow-origin=https://app.example"]) as h:
        for origin in ["http://evil.example", "http://localhost.evil.example", "null",
                       "https://app.example:444"]:
            st, r, body = h.modern("server/discover", headers={"Origin": origin})
            check(st == 403, (origin, st, body))
            check(body["error"]["code"] and "id" not in body, body)
        for origin in [None, "http://localhost:6274", "http://127.0.0.1", "http://[::1]:99",
                       "https://app.example"]:
            st, r, body = h.modern("server/discover", headers={"Origin": origin})
            check(st == 200, (origin, st, body))


def test_bearer_token():
    d = tempfile.mkdtemp(prefix="hermes-token.")
    try:
        bearer_checks(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def bearer_checks(d):
    tf = os.path.join(d, "token")
    with open(tf, "w") as f:
        f.write("s3cret-token-0123456789\n")
    os.chmod(tf, 0o600)
    with Http(args=["--auth-token-file=" + tf]) as h:
        for auth in [None, "Bearer wrong", "Bearer s3cret-token-012345678", "Basic czNjcmV0",
                     "Bearer s3cret-token-0123456789x", "bearer"]:
            st, r, body = h.modern("server/discover", headers={"Authorization": auth})
            check(st == 401, (auth, st, body))
            check(r.getheader("WWW-Authenticate", "").startswith("Bearer"), r.getheaders())
        st, r, body = h.modern("server/discover", headers={"Authorization": "Bearer s3cret-token-0123456789"})
        check(st == 200, (st, body))
        st, r, body = h.modern("server/discover", headers={"Authorization": "bearer s3cret-token-0123456789"})
        check(st == 200, (st, body))
    # off loopback without a token: refused at start, saying why
    p = subprocess.run([HERMES, "mcp", "--listen=0.0.0.0:0"], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
    check(p.returncode == 2 and b"--auth-token-file" in p.stderr, p)
    # an empty token file, or one others can read, is refused too
    with open(tf, "w") as f:
        f.write("\n")
    p = subprocess.run([HERMES, "mcp", "--listen=127.0.0.1:0", "--auth-token-file=" + tf],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
    check(p.returncode != 0 and b"empty" in p.stderr, p)


def test_methods_and_sizes():
    with Http(args=["--max-message-bytes=2K"]) as h:
        for m in ["GET", "PUT"]:
            st, r, body = h.post(None, {"MCP-Protocol-Version": MODERN}, method=m)
            check(st == 405 and "POST" in r.getheader("Allow", ""), (m, st, body))
        st, r, body = h.modern("tools/call", {"name": "fs_writeFile",
                                              "arguments": {"path": "x", "content": "x" * 4096}})
        check(st == 413, (st, body))
        # a body announced too big is refused before it is read
        s = h.raw()
        s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100000000\r\n\r\n")
        s.settimeout(5)
        check(s.recv(100).startswith(b"HTTP/1.1 413"), "no 413 for a huge Content-Length")
        s.close()
        st, r, body = h.modern("server/discover")
        check(st == 200, (st, body))


def test_sse_when_progress_comes_first():
    with Http() as h:
        st, r, body = h.modern("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "sleep 0.5"]}, "_meta": {"progressToken": "p"}})
        check(st == 200 and r.getheader("Content-Type").startswith("text/event-stream"), (st, body))
        check(r.getheader("X-Accel-Buffering") == "no", r.getheaders())
        progress = [m for m in body if m.get("method") == "notifications/progress"]
        check(len(progress) >= 2 and body[-1]["id"] == 1 and body[-1]["result"]["isError"] is False, body)
        # no progress token, no notifications: plain JSON
        st, r, body = h.modern("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "sleep 0.2"]}})
        check(r.getheader("Content-Type").startswith("application/json"), r.getheaders())


def test_closing_the_stream_cancels():
    with Http() as h:
        c = h.conn()
        p = {"name": "proc_run", "arguments": {"executable": "sh", "arguments": [
            "-c", "echo $$ > pid; exec sleep 30"]}, "_meta": {PV: MODERN, CAPS: {}, "progressToken": 1}}
        c.request("POST", h.path, body=json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                                                  "params": p}),
                  headers={"Content-Type": "application/json", "MCP-Protocol-Version": MODERN,
                           "Mcp-Method": "tools/call", "Mcp-Name": "proc_run",
                           "Accept": "application/json, text/event-stream"})
        pidf = os.path.join(h.root, "pid")
        deadline = time.monotonic() + 5
        while not (os.path.exists(pidf) and open(pidf).read().strip()):
            check(time.monotonic() < deadline, "proc_run did not start")
            time.sleep(0.01)
        pid = int(open(pidf).read())
        check(pid_alive(pid), "not running")
        t0 = time.monotonic()
        c.sock.shutdown(socket.SHUT_RDWR)
        c.close()
        while pid_alive(pid) and time.monotonic() - t0 < 5:
            time.sleep(0.01)
        check(not pid_alive(pid) and time.monotonic() - t0 < 1.5,
              "sleep still running %.2f s after the stream closed" % (time.monotonic() - t0))
        st, r, body = h.modern("server/discover")
        check(st == 200, body)


def test_legacy_sessions():
    with Http() as h:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        st, r, body = h.post(init)
        check(st == 200 and body["result"]["protocolVersion"] == "2025-06-18", (st, body))
        sid = r.getheader("Mcp-Session-Id")
        check(sid and re.fullmatch(r"[\x21-\x7e]+", sid) and len(sid) >= 16, sid)
        hd = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}
        st, r, body = h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, hd)
        check(st == 202, (st, body))
        st, r, body = h.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                              "params": {"name": "fs_exists", "arguments": {"path": "."}}}, hd)
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True
              and "resultType" not in body["result"], body)
        st, r, body = h.post({"jsonrpc": "2.0", "id": 3, "method": "ping"}, hd)
        check(st == 200 and body["result"] == {}, body)
        # without the session id, or with an unknown one
        st, r, body = h.post({"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
                             {"MCP-Protocol-Version": "2025-06-18"})
        check(st == 400, (st, body))
        st, r, body = h.post({"jsonrpc": "2.0", "id": 4, "method": "tools/list"},
                             {"Mcp-Session-Id": "nope" * 8})
        check(st == 404, (st, body))
        # a protocol version header that is not the session's
        st, r, body = h.post({"jsonrpc": "2.0", "id": 5, "method": "tools/list"},
                             {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "1999-01-01"})
        check(st == 400, (st, body))
        # GET opens the session's stream (tests/mcp_subscribe_http.py), only as an event stream;
        # DELETE ends the session
        st, r, body = h.post(None, dict(hd, Accept="application/json"), method="GET")
        check(st == 406, (st, body))
        st, r, body = h.post(None, hd, method="DELETE")
        check(st in (200, 204), (st, body))
        st, r, body = h.post({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}, hd)
        check(st == 404, (st, body))
        # a second client gets its own session
        st, r, body = h.post(init)
        check(st == 200 and r.getheader("Mcp-Session-Id") not in (None, sid), r.getheaders())
        # a refused initialize begins none
        st, r, body = h.post({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}})
        check(st == 400 and body["error"]["code"] == -32602 and r.getheader("Mcp-Session-Id") is None,
              (st, body, r.getheaders()))


def test_programs_are_the_servers_whichever_client_started_them():
    with Http() as h:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}}}
        st, r, body = h.post(init)
        hd = {"Mcp-Session-Id": r.getheader("Mcp-Session-Id")}
        h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, hd)
        st, r, body = h.post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "proc_start", "arguments": {"executable": "sleep", "arguments": ["30"],
                                                "waitSeconds": 0}}}, hd)
        check(st == 200 and body["result"]["isError"] is False, body)
        pid = body["result"]["structuredContent"]["id"]
        # a 2026 client sees it and stops it: one workspace, one table of programs
        st, r, body = h.modern("tools/call", {"name": "proc_list", "arguments": {}})
        ids = [p["id"] for p in body["result"]["structuredContent"]["programs"]]
        check(pid in ids, (pid, body))
        st, r, body = h.modern("tools/call", {"name": "proc_stop", "arguments": {"id": pid}})
        check(st == 200 and body["result"]["isError"] is False, body)


def test_handles_name_their_instance_and_are_mirrored():
    """Behind a load balancer: every handle is <instance>.<id>; the tool's schema marks the id
    x-mcp-header "Handle" (2026-07-28), the Mcp-Param-Handle header must mirror it (400 -32020
    when missing or different; base64 form accepted); a handle of another instance is
    WrongInstance naming it, never NotFound; 2025 session ids carry the instance too."""
    with Http(args=["--instance=alpha-1"]) as a, Http(args=["--instance=beta-2"]) as b:
        st, r, body = a.modern("tools/list")
        tools = {t["name"]: t for t in body["result"]["tools"]}
        for name in ("proc_output", "proc_write", "proc_stop"):
            check(tools[name]["inputSchema"]["properties"]["id"].get("x-mcp-header") == "Handle",
                  tools[name]["inputSchema"])
        check("x-mcp-header" not in json.dumps(tools["fs_readFile"]), "only handles are mirrored")
        st, r, body = a.modern("tools/call", {"name": "proc_start", "arguments": {
            "executable": "sleep", "arguments": ["30"], "waitSeconds": 0}})
        pid = body["result"]["structuredContent"]["id"]
        check(re.match(r"^alpha-1\.p\d+-[0-9a-f]{6}$", pid), pid)
        call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "proc_output", "arguments": {"id": pid},
            "_meta": {PV: MODERN, CAPS: {}}}}
        hdr = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "proc_output"}
        for bad in (None, "alpha-1.p9-000000"):
            st, r, body = a.post(call, dict(hdr, **{"Mcp-Param-Handle": bad}))
            check(st == 400 and body["error"]["code"] == -32020, (bad, st, body))
        enc = "=?base64?" + base64.b64encode(pid.encode()).decode() + "?="
        st, r, body = a.post(call, dict(hdr, **{"Mcp-Param-Handle": enc}))
        check(st == 200 and body["result"]["structuredContent"]["running"], (st, body))
        # the other instance: the clear error, naming the holder
        st, r, body = b.modern("tools/call", {"name": "proc_output", "arguments": {"id": pid}})
        sc = body["result"]["structuredContent"]
        check(sc["errorCode"] == "WrongInstance" and "'alpha-1'" in sc["errorMessage"], sc)
        st, r, body = b.modern("tools/call", {"name": "proc_stop", "arguments": {"id": "beta-2.p9-000000"}})
        check(body["result"]["structuredContent"]["errorCode"] == "NotFound", body)
        st, r, body = a.modern("tools/call", {"name": "proc_stop", "arguments": {"id": pid}})
        check(body["result"]["isError"] is False, body)
        st, r, body = b.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}}})
        sid = r.getheader("Mcp-Session-Id")
        check(re.match(r"^beta-2\.[0-9a-f]{32}$", sid), sid)


def test_unix_socket():
    with Http(unix=True) as h:
        check(h.url.startswith("http://localhost"), h.url)
        st, r, body = h.modern("tools/call", {"name": "fs_exists", "arguments": {"path": "."}})
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True, body)
    check(not os.path.exists(h.unix), "the socket was left behind")


def test_slow_client_does_not_hold_a_slot():
    with Http(args=["--http-timeout=1", "--max-connections=4"]) as h:
        slow = []
        for i in range(3):  # three slow clients: half a request each, then nothing
            s = h.raw()
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
            slow.append(s)
        t0 = time.monotonic()
        st, r, body = h.modern("server/discover")  # the fourth slot still answers
        check(st == 200, (st, body))
        for s in slow:  # and the slow ones are dropped after the timeout
            s.settimeout(5)
            try:
                data = s.recv(1000)
            except ConnectionResetError:
                data = b""
            check(data == b"" or data.startswith(b"HTTP/1.1 408"), data)
            s.close()
        check(time.monotonic() - t0 < 4, "slow clients held for %.1f s" % (time.monotonic() - t0))
        # a client that sends its header byte by byte, slower than the timeout allows in total
        s = h.raw()
        t0 = time.monotonic()
        closed = False
        try:
            for b in b"POST /mcp HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
                s.sendall(bytes([b]))
                time.sleep(0.1)
                if time.monotonic() - t0 > 4:
                    break
        except (BrokenPipeError, ConnectionResetError):
            closed = True
        check(closed or time.monotonic() - t0 < 4.5, "a trickling header held a slot")
        s.close()


def test_connections_past_the_limit_wait():
    import threading
    with Http(args=["--max-connections=2", "--http-timeout=20"]) as h:
        held = [h.raw(), h.raw()]  # both slots, idle
        time.sleep(0.2)
        out = {}

        def third():
            try:
                out["status"] = h.modern("server/discover")[0]
            except Exception as e:  # refused instead of waiting
                out["error"] = repr(e)
            out["at"] = time.monotonic()
        t = threading.Thread(target=third)
        t.start()
        time.sleep(0.5)
        check(not out, "a third connection was not made to wait: %r" % out)
        freed = time.monotonic()
        held[0].close()  # a slot frees: the waiting client is served
        t.join(10)
        check(out.get("status") == 200 and out["at"] - freed < 2, out)
        held[1].close()


def test_memory_bound_is_the_servers():
    """12 2025-era sessions, each its own initialize and Mcp-Session-Id, send 3 fs.readFile of an
    11 MB file each at once (36 connections) and read nothing for three seconds, then read their
    answers all at once: the bound on results and replies is the server's, not each session's, so
    the server's peak RSS stays under 128 MiB (50 MiB; 820 MiB when the bound was per session);
    and every request gets its whole answer."""
    sessions, each = 12, 3
    with Http() as h:
        line = "%07d: the same text again and again, to be read whole by fs.readFile\n"
        with open(os.path.join(h.root, "big.txt"), "w") as f:
            f.write("".join(line % i for i in range(150000)))
        size = os.path.getsize(os.path.join(h.root, "big.txt"))
        sids = []
        for i in range(sessions):
            st, r, body = h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t%d" % i, "version": "1"}}})
            check(st == 200, (st, body))
            sids.append(r.getheader("Mcp-Session-Id"))
            st, r, body = h.post({"jsonrpc": "2.0", "method": "notifications/initialized"},
                                 {"Mcp-Session-Id": sids[-1], "MCP-Protocol-Version": "2025-06-18"})
            check(st == 202, (st, body))
        check(len(set(sids)) == sessions, sids)
        socks = []
        for sid in sids:
            for j in range(each):
                body = json.dumps({"jsonrpc": "2.0", "id": 10 + j, "method": "tools/call", "params": {
                    "name": "fs_readFile", "arguments": {"path": "big.txt"}}}).encode()
                s = h.raw()
                s.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                          b"Accept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\n"
                          b"MCP-Protocol-Version: 2025-06-18\r\nConnection: close\r\n"
                          b"Content-Length: %d\r\n\r\n%s"
                          % (h.path.encode(), sid.encode(), len(body), body))
                socks.append((s, 10 + j))
        time.sleep(3)  # of not reading
        results = [None] * len(socks)

        def read(k):
            s, id = socks[k]
            data = bytearray()
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
            s.close()
            head, _, payload = bytes(data).partition(b"\r\n\r\n")
            ok = head.startswith(b"HTTP/1.1 200")
            if ok:
                reply = json.loads(payload)
                content = reply["result"]["structuredContent"]
                ok = reply["id"] == id and content["content"].count("the same text again") == 150000
            results[k] = ok or head[:200]

        threads = [threading.Thread(target=read, args=(k,)) for k in range(len(socks))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        peak = rss_kib(h.proc.pid, "VmHWM")
        asan = sanitized(h.proc.pid)
        whole = sum(1 for r in results if r is True)
        check(whole == len(socks), "%d of %d answers whole: %r" %
              (whole, len(socks), [r for r in results if r is not True][:3]))
        if not asan:
            check(peak < 128 * 1024, "peak RSS %.1f MiB with %d sessions of %d fs.readFile of %.1f MB"
                  % (peak / 1024, sessions, each, size / 1e6))
        print("%d sessions x %d fs.readFile of %.1f MB, not read for 3 s: peak RSS %.1f MiB; all "
              "answered whole" % (sessions, each, size / 1e6, peak / 1024))


def big_file(root, name="big.txt", lines=150000):
    """An 11 MB text file (lines=150000) in root; its size."""
    line = "%07d: the same text again and again, to be read whole by fs.readFile\n"
    with open(os.path.join(root, name), "w") as f:
        f.write("".join(line % i for i in range(lines)))
    return os.path.getsize(os.path.join(root, name))


def raw_call(h, name, arguments, id=1, meta=None, rcvbuf=None):
    """A 2026 tools/call sent on a socket of its own, not read: the socket. rcvbuf: a small
    receive buffer, so that the kernel does not take much of an unread reply off the server."""
    params = {"name": name, "arguments": arguments,
              "_meta": dict({PV: MODERN, CAPS: {}}, **(meta or {}))}
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": params}).encode()
    host, port = h.hostport.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((host, int(port)))
    s.sendall(b"POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: %s\r\n"
              b"Mcp-Method: tools/call\r\nMcp-Name: %s\r\nConnection: close\r\n"
              b"Content-Length: %d\r\n\r\n%s"
              % (h.path.encode(), MODERN.encode(), name.encode(), len(body), body))
    return s


def read_all(s, within=60):
    """Everything the server sends on s until it closes it (or within seconds pass)."""
    s.settimeout(within)
    data = bytearray()
    try:
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    s.close()
    return bytes(data)


def test_sse_replies_count_in_the_memory_bound():
    """24 tools/call fs_readFile of a 4 MB file that ask for progress (so their answers stream as
    text/event-stream), not read for three seconds: the streamed bytes count in the server's
    budget like a JSON reply's until they are written, so the peak RSS stays under 96 MiB
    (214-224 MiB when a message stopped counting as its stream began); then every stream ends
    with the whole answer."""
    n = 24
    with Http() as h:
        size = big_file(h.root, lines=55000)
        socks = [raw_call(h, "fs_readFile", {"path": "big.txt"}, id=k,
                          meta={"progressToken": "p%d" % k}) for k in range(n)]
        time.sleep(3)  # of not reading
        peak = rss_kib(h.proc.pid, "VmHWM")
        results = [None] * n

        def read(k):
            data = read_all(socks[k])
            head, _, payload = data.partition(b"\r\n\r\n")
            ok = head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head
            if ok:
                # the chunked framing of the stream: undo it, then read its events
                body, rest = bytearray(), payload
                while rest:
                    ln, _, rest = rest.partition(b"\r\n")
                    if int(ln, 16) == 0:
                        break
                    body += rest[:int(ln, 16)]
                    rest = rest[int(ln, 16) + 2:]
                events = sse_events(bytes(body))
                last = events[-1] if events else {}
                ok = last.get("id") == k and last["result"]["structuredContent"]["content"].count(
                    "the same text again") == 55000 and len(events) > 1
            results[k] = ok or head[:300]

        threads = [threading.Thread(target=read, args=(k,)) for k in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        whole = sum(1 for r in results if r is True)
        check(whole == n, "%d of %d streams whole: %r" % (whole, n, [r for r in results
                                                                     if r is not True][:3]))
        if not sanitized(h.proc.pid):
            check(peak < 96 * 1024, "peak RSS %.1f MiB with %d unread SSE answers of %.1f MB"
                  % (peak / 1024, n, size / 1e6))
        print("%d SSE answers of a %.1f MB file, not read for 3 s: peak RSS %.1f MiB; all whole"
              % (n, size / 1e6, peak / 1024))


def test_an_unread_sse_stream_gets_the_idle_timeout():
    """A stream whose client stops reading is closed after --http-timeout, as a JSON reply's
    connection is (it was never closed): the server does not hold its bytes for ever."""
    with Http(args=["--http-timeout=2"]) as h:
        big_file(h.root)
        s = raw_call(h, "fs_readFile", {"path": "big.txt"}, meta={"progressToken": "p"},
                     rcvbuf=4096)
        time.sleep(7)  # the timeout, and more
        data = read_all(s, within=20)
        check(b"text/event-stream" in data[:1000], data[:300])
        check(b'"structuredContent"' not in data,
              "the unread stream was not closed: %d bytes, the whole answer" % len(data))
        # and the server still answers
        st, r, body = h.modern("tools/call", {"name": "fs_exists", "arguments": {"path": "."}})
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True, body)


def test_a_quiet_stream_read_by_its_client_is_not_timed_out():
    """The idle timeout of a stream is for a client that does not read what it is given, not for
    a tool that is quiet: a stream waiting 4 s for its program, --http-timeout=1, ends whole."""
    with Http(args=["--http-timeout=1"]) as h:
        st, r, body = h.modern("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "echo up; sleep 4; echo done"]},
            "_meta": {"progressToken": "p"}})
        check(st == 200 and r.getheader("Content-Type").startswith("text/event-stream"), (st, body))
        check(body and body[-1].get("id") == 1 and body[-1]["result"]["isError"] is False, body)


def test_one_unread_reply_does_not_stall_the_others():
    """Client A asks for an 11 MB file and reads nothing; client B's calls are answered at once,
    not after A's timeout (29 s when A's unread reply held the whole replies' bound): the
    quick fs_exists (run by the reader), fs_readRange (run by a worker) and a small
    fs_readFile (whose result is announced)."""
    with Http(args=["--http-timeout=20"]) as h:
        big_file(h.root)
        with open(os.path.join(h.root, "small.txt"), "w") as f:
            f.write("one\ntwo\nthree\n")
        hog = [raw_call(h, "fs_readFile", {"path": "big.txt"}, id=k, rcvbuf=4096)
               for k in range(2)]
        time.sleep(2)  # its replies are made, and wait for the client
        for name, args, key in (("fs_exists", {"path": "small.txt"}, "exists"),
                                ("fs_readRange", {"path": "small.txt", "startLine": 1,
                                                  "endLine": 2}, "content"),
                                ("fs_readFile", {"path": "small.txt"}, "content")):
            t0 = time.monotonic()
            st, r, body = h.modern("tools/call", {"name": name, "arguments": args})
            took = time.monotonic() - t0
            check(st == 200 and key in body["result"]["structuredContent"], (st, body))
            check(took < 3, "%s waited %.1f s behind another client's unread reply" % (name, took))
        for s in hog:
            s.close()


if __name__ == "__main__":  # tests/mcp_http_abuse.py borrows Http
    run_tests(globals())
