# tests/mcp_http_abuse.py: clients that try to hold, confuse or take over `hermes mcp --listen`:
# a request line trickled a byte a second on every slot (the whole request must arrive within
# --http-timeout), mirrored headers given twice (400), a second server on a live Unix socket
# (refused; a stale one is replaced), and a token file that is a FIFO or not a file (refused at
# once). Skipped where hermes was built without HTTP.
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from mcp_http import CAPS, MODERN, PV, Http
from server_lib import HERMES, check, run_tests


def test_trickled_request_line_is_cut_off():
    """Four connections take every slot and send `POST /mcp HTTP/1.1` a byte a second: each is
    closed once --http-timeout has passed since it opened, so the next client is served within
    about that long (over 14 s when only headers and bodies were timed)."""
    with Http(args=["--max-connections=4", "--http-timeout=2"]) as h:
        stop = threading.Event()
        cut = []

        def trickle():
            s = h.raw()
            t0 = time.monotonic()
            try:
                for b in b"POST /mcp HTTP/1.1\r\nHost: x\r\n":
                    if stop.is_set():
                        return
                    s.sendall(bytes([b]))
                    stop.wait(1)
                s.settimeout(20)
                s.recv(100)
            except OSError:
                pass
            finally:
                cut.append(time.monotonic() - t0)
                s.close()

        threads = [threading.Thread(target=trickle) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(0.5)  # every slot is taken
        t0 = time.monotonic()
        c = h.conn(timeout=40)
        st, r, body = h.modern("server/discover", conn=c)
        took = time.monotonic() - t0
        c.close()
        stop.set()
        for t in threads:
            t.join()
        check(st == 200, (st, body))
        check(took < 6, "a client waited %.1f s behind four trickled request lines (timeout 2 s)"
              % took)
        # and each trickler was cut off about the timeout after it connected, not when done
        check(len(cut) == 4 and max(cut) < 6, "trickling connections held for %r s" % cut)


def test_duplicate_mirrored_headers():
    """A mirrored header given twice is refused (400, -32020), whichever copy agrees with the
    body, and the call does not run."""
    with Http() as h:
        body = ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fs_writeFile",'
                '"arguments":{"path":"dup","content":"x"},"_meta":{"%s":"%s","%s":{}}}}'
                % (PV, MODERN, CAPS)).encode()
        good = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "fs_writeFile"}
        bad = {"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "tools/list", "Mcp-Name": "fs_readFile"}
        for name in good:
            for extra in (bad[name], good[name]):
                for first in (True, False):
                    lines = ["POST /mcp HTTP/1.1", "Host: x", "Content-Type: application/json",
                             "Accept: application/json, text/event-stream",
                             "Content-Length: %d" % len(body), "Connection: close"]
                    pair = [name + ": " + good[name], name.lower() + ": " + extra]
                    lines += pair if first else pair[::-1]
                    lines += [k + ": " + v for k, v in good.items() if k != name]
                    s = h.raw()
                    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                    s.settimeout(10)
                    data = b""
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    s.close()
                    check(data.startswith(b"HTTP/1.1 400") and b"-32020" in data
                          and b"twice" in data, (name, extra, first, data[:400]))
        check(not os.path.exists(os.path.join(h.root, "dup")), "a call with a doubled header ran")
        # one of each still works
        st, r, body = h.modern("tools/call", {"name": "fs_exists", "arguments": {"path": "."}})
        check(st == 200 and body["result"]["structuredContent"]["exists"] is True, (st, body))


def test_live_unix_socket_is_not_taken_over():
    with Http(unix=True) as h:
        p = subprocess.run([HERMES, "mcp", "--listen=unix:" + h.unix], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        check(p.returncode == 2 and b"in use" in p.stderr, p)
        check(os.path.exists(h.unix), "the second server removed the first one's socket")
        st, r, body = h.modern("server/discover")
        check(st == 200, (st, body))
    # a stale socket (nobody listening) is replaced
    d = tempfile.mkdtemp(prefix="hermes-sock.")
    try:
        path = os.path.join(d, "s")
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(path)
        stale.close()
        check(os.path.exists(path), "no stale socket")
        errf = open(os.path.join(d, "stderr"), "w+b")
        proc = subprocess.Popen([HERMES, "mcp", "--listen=unix:" + path, "--root", d],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errf)
        deadline = time.monotonic() + 5
        while True:  # until it says so (its signal handlers are in place by then)
            errf.seek(0)
            err = errf.read()
            if b"listening on" in err:
                break
            check(proc.poll() is None and time.monotonic() < deadline,
                  "the server did not replace a stale socket: %r" % err)
            time.sleep(0.02)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.connect(path)  # the new server's socket
        c.close()
        proc.terminate()
        proc.wait(10)
        errf.seek(0)
        err = errf.read()
        errf.close()
        check(proc.returncode == 0, (proc.returncode, err))
        check(not os.path.exists(path), "the socket was left behind")
        # a path that is no socket is not removed either
        with open(path, "w") as f:
            f.write("keep")
        p = subprocess.run([HERMES, "mcp", "--listen=unix:" + path], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
        check(p.returncode == 2 and open(path).read() == "keep", p)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_token_file_must_be_a_regular_file():
    d = tempfile.mkdtemp(prefix="hermes-token.")
    try:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo, 0o600)
        sub = os.path.join(d, "dir")
        os.mkdir(sub, 0o700)
        for path in (fifo, sub):
            t0 = time.monotonic()
            try:
                p = subprocess.run([HERMES, "mcp", "--listen=127.0.0.1:0", "--auth-token-file=" + path],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=10)
            except subprocess.TimeoutExpired:
                check(False, "hermes mcp hung on the token file %s" % path)
            check(p.returncode == 2 and b"not a regular file" in p.stderr, p)
            check(time.monotonic() - t0 < 5, "refused only after %.1f s" % (time.monotonic() - t0))
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_tests(globals())
