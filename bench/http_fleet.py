#!/usr/bin/env python3
# bench/http_fleet.py: the measured part of issue 27, in one run on one machine, with
# bench/http_client.c as the client of every row (tools/call fs_exists of the 2026-07-28 era):
#   direct  one `hermes mcp --listen` (no token)
#   fleet   three instances behind nginx, configured as the README shows (the map on the handle's
#           instance; fs_exists names no handle, so requests spread over the three), upstream
#           connections kept alive
#   ts      the official TypeScript SDK v2 server (@modelcontextprotocol/server, Node, stateless
#           Streamable HTTP: bench/ts_sdk_server.mjs) answering an equivalent fs_exists
#   static  one hermes with a static token (--auth-token-file)
#   oauth   one hermes as an OAuth resource server, every request carrying the same JWT (ES256,
#           signed here with openssl by a local issuer that serves RFC 8414 metadata and the JWKS)
# Each round runs every row once, 1 connection then 64 connections, in an order that rotates from
# round to round so that the machine's load falls on all alike; the medians over the rounds are
# printed, with the server CPU per request (utime+stime of the server processes from /proc, over
# the 64-connection run): the JWT's cost is oauth's CPU per request less direct's.
#
#   bench/http_fleet.py [--rounds N] [--seconds S] [--only ROW,...] [--perf]
# HERMES (default ./hermes), CC, MCP_SERVER_DIR (an npm prefix with @modelcontextprotocol/server,
# default ~/.cache/hermes-mcp-server; the ts row is left out without it or node).
import argparse
import base64
import http.client
import http.server
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from fleet_nginx import nginx_conf  # noqa: E402
from server_lib import free_port  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HERMES = os.path.abspath(os.environ.get("HERMES", "./hermes"))
MODERN = "2026-07-28"
BODY = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "fs_exists", "arguments": {"path": "small.txt"},
                              "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                                        "io.modelcontextprotocol/clientCapabilities": {}}}},
                  separators=(",", ":"))
HEADERS = ["MCP-Protocol-Version: " + MODERN, "Mcp-Method: tools/call", "Mcp-Name: fs_exists",
           "Content-Type: application/json", "Accept: application/json, text/event-stream"]
TICK = os.sysconf("SC_CLK_TCK")


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


class Issuer:
    """An OAuth issuer on loopback: an EC P-256 key made by openssl, RFC 8414 metadata, the JWKS,
    and ES256 access tokens signed by `openssl dgst`."""

    def __init__(self, d):
        self.key = os.path.join(d, "issuer.pem")
        subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout",
                        "-out", self.key], check=True, capture_output=True)
        der = subprocess.run(["openssl", "ec", "-in", self.key, "-pubout", "-outform", "DER"],
                             check=True, capture_output=True).stdout
        point = der[-65:]  # 04 || x || y
        jwks = {"keys": [{"kty": "EC", "crv": "P-256", "x": b64u(point[1:33]),
                          "y": b64u(point[33:]), "kid": "k1", "alg": "ES256", "use": "sig"}]}
        port = free_port()
        self.url = "http://127.0.0.1:%d" % port
        meta = {"issuer": self.url, "jwks_uri": self.url + "/jwks",
                "token_endpoint": self.url + "/token"}
        pages = {"/.well-known/oauth-authorization-server": meta, "/jwks": jwks}

        class H(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                page = pages.get(self.path)
                body = json.dumps(page).encode() if page else b"{}"
                self.send_response(200 if page else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), H)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def token(self, audience):
        now = int(time.time())
        head = b64u(json.dumps({"alg": "ES256", "kid": "k1", "typ": "at+jwt"}).encode())
        claims = b64u(json.dumps({"iss": self.url, "aud": audience, "sub": "bench",
                                  "client_id": "bench", "iat": now, "exp": now + 3600,
                                  "scope": "hermes:read hermes:write hermes:exec"}).encode())
        signing = (head + "." + claims).encode()
        der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.key], input=signing,
                             check=True, capture_output=True).stdout
        # the DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) to JWS's r || s, 32 bytes each
        i = 2 if der[1] < 0x80 else 3
        parts = []
        for _ in range(2):
            n = der[i + 1]
            parts.append(int.from_bytes(der[i + 2:i + 2 + n], "big").to_bytes(32, "big"))
            i += 2 + n
        return signing.decode() + "." + b64u(parts[0] + parts[1])


def start_hermes(d, name, ws, extra=()):
    log = open(os.path.join(d, name + ".log"), "w+b")
    p = subprocess.Popen([HERMES, "mcp", "--listen=127.0.0.1:0", "--instance=" + name,
                          "--root", ws] + list(extra), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 15
    while True:
        log.seek(0)
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)/mcp", log.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            sys.exit("bench: %s did not start: %s" % (name, log.read().decode(errors="replace")))
        time.sleep(0.05)


def nginx_fleet(d, ports):
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(exe, os.X_OK):
        return None, None
    port = free_port()
    path = nginx_conf(d, ports, port, keepalive=64, connections=1024)
    p = subprocess.Popen([exe, "-p", os.path.join(d, "nginx"), "-c", path],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return p, port
        except OSError:
            time.sleep(0.05)
    sys.exit("bench: nginx did not start")


def start_ts(d, ws):
    node = shutil.which("node")
    sdk = os.environ.get("MCP_SERVER_DIR", os.path.expanduser("~/.cache/hermes-mcp-server"))
    if not node or not os.path.exists(os.path.join(sdk, "node_modules/@modelcontextprotocol/server")):
        print("(no node or @modelcontextprotocol/server under %s: the ts row is left out; npm "
              "install --prefix %s @modelcontextprotocol/server@2.4.0)" % (sdk, sdk))
        return None, None
    p = subprocess.Popen([node, os.path.join(HERE, "ts_sdk_server.mjs"), ws],
                         env=dict(os.environ, MCP_SERVER_DIR=sdk), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=open(os.path.join(d, "ts.log"), "wb"))
    line = p.stdout.readline()
    if not line:
        sys.exit("bench: the TypeScript SDK server did not start (see %s/ts.log)" % d)
    return p, json.loads(line)["port"]


def tree(pid):
    """pid and its descendants."""
    kids = {}
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open("/proc/%s/stat" % e) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(e))
            except OSError:
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def cpu_seconds(pids):
    t = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            t += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return t / TICK


def check_answer(port, headers):
    """One request as the client will send it: it must answer exists: true."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("POST", "/mcp", body=BODY, headers=dict(h.split(": ", 1) for h in headers))
    r = c.getresponse()
    raw = r.read().decode()
    if r.status != 200 or '"exists":true' not in raw:
        sys.exit("bench: port %d answered %d %s" % (port, r.status, raw[:300]))


def run_client(client, port, conns, seconds, headers):
    out = subprocess.run([client, "127.0.0.1", str(port), str(conns), str(seconds), "POST", "/mcp",
                          BODY] + headers, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("bench: http_client: %s" % out.stderr)
    m = dict(kv.split("=") for kv in out.stdout.split())
    return int(m["requests"]), float(m["rate"]), float(m["rtt_us"])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--only", default="direct,fleet,ts,static,oauth")
    ap.add_argument("--perf", action="store_true",
                    help="also sample the oauth server with perf during a 64-connection run: the "
                         "share of its CPU in token checking (libcrypto, hermes_oauth_*, the cache)")
    a = ap.parse_args()
    only = a.only.split(",")
    d = tempfile.mkdtemp(prefix="hermes-bench-fleet.")
    procs = []
    try:
        client = os.path.join(d, "http_client")
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-Wall", "-pthread", "-o", client,
                        os.path.join(HERE, "http_client.c")], check=True)
        ws = os.path.join(d, "ws")
        os.mkdir(ws)
        with open(os.path.join(ws, "small.txt"), "w") as f:
            f.write("small\n")
        rows = {}  # name -> (port, headers, [pids to count])
        if "direct" in only:
            p, port = start_hermes(d, "direct", ws)
            procs.append(p)
            rows["direct"] = (port, HEADERS, [p.pid])
        if "fleet" in only:
            ports, pids = {}, []
            for n in ("h1", "h2", "h3"):
                p, ports[n] = start_hermes(d, n, ws)
                procs.append(p)
                pids.append(p.pid)
            p, port = nginx_fleet(d, ports)
            if p:
                procs.append(p)
                rows["fleet"] = (port, HEADERS, pids + [p.pid])
            else:
                print("(nginx is not installed: the fleet row is left out)")
        if "ts" in only:
            p, port = start_ts(d, ws)
            if p:
                procs.append(p)
                rows["ts"] = (port, HEADERS, [p.pid])
        if "static" in only:
            tok = b64u(os.urandom(32))
            tf = os.path.join(d, "tokens")
            with open(tf, "w") as f:
                f.write(tok + "\n")
            os.chmod(tf, 0o600)
            p, port = start_hermes(d, "static", ws, ["--auth-token-file=" + tf])
            procs.append(p)
            rows["static"] = (port, HEADERS + ["Authorization: Bearer " + tok], [p.pid])
        if "oauth" in only:
            iss = Issuer(d)
            port = free_port()
            aud = "http://127.0.0.1:%d/mcp" % port
            log = open(os.path.join(d, "oauth.log"), "w+b")
            p = subprocess.Popen([HERMES, "mcp", "--listen=127.0.0.1:%d" % port, "--instance=oauth",
                                  "--root", ws, "--oauth-issuer=" + iss.url,
                                  "--oauth-audience=" + aud], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=log)
            procs.append(p)
            for _ in range(300):
                log.seek(0)
                if b"listening on" in log.read():
                    break
                time.sleep(0.05)
            rows["oauth"] = (port, HEADERS + ["Authorization: Bearer " + iss.token(aud)], [p.pid])
        for name, (port, headers, _) in rows.items():
            check_answer(port, headers)
        names = list(rows)
        # warm-up, not counted: Node's JIT, the servers' thread pools, the token cache
        for n in names:
            run_client(client, rows[n][0], 64, 1, rows[n][1])
        res = {n: {"rate": [], "rtt": [], "cpu": []} for n in names}
        print("%d rounds of %s, %g s per run, 1 then 64 connections; load: %s" % (
            a.rounds, ", ".join(names), a.seconds, open("/proc/loadavg").read().split()[:3]))
        for r in range(a.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for n in order:
                port, headers, pids = rows[n]
                counted = [q for p in pids for q in tree(p)]
                # the round trip first, on a server that the 64 connections' run has not just left
                _, _, rtt = run_client(client, port, 1, a.seconds, headers)
                c0 = cpu_seconds(counted)
                reqs, rate, _ = run_client(client, port, 64, a.seconds, headers)
                cpu = (cpu_seconds(counted) - c0) / reqs * 1e6
                time.sleep(0.5)  # its connections close before the next row starts
                res[n]["rate"].append(rate)
                res[n]["rtt"].append(rtt)
                res[n]["cpu"].append(cpu)
                print("  round %d %-7s %9.0f req/s  %7.1f us round trip  %6.1f us server CPU/req"
                      % (r + 1, n, rate, rtt, cpu), flush=True)
        med = {n: {k: statistics.median(v) for k, v in res[n].items()} for n in names}
        print("\nmedians over %d rounds:" % a.rounds)
        print("%-8s %12s %14s %18s" % ("row", "requests/s", "round trip us", "server CPU us/req"))
        for n in names:
            print("%-8s %12.0f %14.1f %18.1f" % (n, med[n]["rate"], med[n]["rtt"], med[n]["cpu"]))
        if "direct" in med and "fleet" in med:
            print("fleet (3 behind nginx) against direct: %.2fx the requests/s, %+.1f us a round trip"
                  % (med["fleet"]["rate"] / med["direct"]["rate"],
                     med["fleet"]["rtt"] - med["direct"]["rtt"]))
        if "direct" in med and "ts" in med:
            print("hermes direct against the TypeScript SDK v2 server: %.1fx the requests/s, "
                  "%.1fx faster a round trip" % (med["direct"]["rate"] / med["ts"]["rate"],
                                                 med["ts"]["rtt"] / med["direct"]["rtt"]))
        if "direct" in med and "oauth" in med:
            per_round = [(o - b) / o * 100 for o, b in zip(res["oauth"]["cpu"], res["direct"]["cpu"])]
            print("JWT (cached) against no token: %+.1f us CPU a request, %+.1f%% of oauth's "
                  "request CPU (median of the rounds' differences; goal <= 5%%); per round: %s"
                  % (med["oauth"]["cpu"] - med["direct"]["cpu"], statistics.median(per_round),
                     " ".join("%+.1f%%" % x for x in per_round)))
        if a.perf and "oauth" in rows and shutil.which("perf"):
            port, headers, pids = rows["oauth"]
            data = os.path.join(d, "perf.data")
            rec = subprocess.Popen(["perf", "record", "-q", "-F", "2999", "-p", str(pids[0]), "-o",
                                    data, "--", "sleep", str(a.seconds)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            run_client(client, port, 64, a.seconds + 0.5, headers)
            rec.wait()
            rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,sym",
                                  "-g", "none", "--stdio"], capture_output=True, text=True).stdout
            share = 0.0
            for line in rep.splitlines():
                m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[.\]\s+(\S+)", line)
                if m and ("libcrypto" in m.group(2) or
                          re.match(r"hermes_(oauth|jwt)|hash_token|cache_(find|put)|set_of", m.group(3))):
                    share += float(m.group(1))
            print("perf: token checking (libcrypto, hermes_oauth_verify, the cache of verified "
                  "tokens) is %.1f%% of the oauth server's samples (goal <= 5%%)" % share)
        if "static" in med and "oauth" in med:
            print("JWT (cached) against a static token: %+.1f us CPU a request"
                  % (med["oauth"]["cpu"] - med["static"]["cpu"]))
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
