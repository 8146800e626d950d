# tests/mcp_subscribe_http.py: resource subscriptions over Streamable HTTP, with a raw client
# reading the streams byte by byte: a 2025 session's GET stream (resources/subscribe's
# notifications/resources/updated on it, held while no stream is open, a comment line as
# keep-alive while quiet, one stream per session: a second GET takes over, DELETE and the server's
# stop end it, an unread one is closed at the idle timeout) and a 2026-07-28 subscriptions/listen
# (its response stream stays open: the acknowledgment, the notifications with its id, keep-alives,
# its completion result when the server stops; a closed stream ends the listen, so that no more
# than the bound stay open). The JSON Schemas are checked by the SDK tests (mcp_sdk.mjs,
# mcp_client.mjs). Skipped where hermes was built without HTTP.
import json
import os
import socket
import sys
import threading
import time

from server_lib import check, run_tests
from mcp_http import CAPS, MODERN, PV, Http

V25 = "2025-11-25"


class Stream:
    """A raw HTTP request whose response is read as it comes: the SSE events and comments."""

    def __init__(self, h, head, body=b""):
        self.s = h.raw()
        self.s.settimeout(0.2)
        self.s.sendall(head.encode() + body)
        self.buf = b""
        self.eof = False

    def pump(self, seconds, until_data=False):
        """Reads for up to seconds (until the end of the response; with until_data, until some
        bytes came)."""
        deadline = time.monotonic() + seconds
        while not self.eof and time.monotonic() < deadline:
            self.s.settimeout(max(0.001, min(0.2, deadline - time.monotonic())))
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                d = b""
            if not d:
                self.eof = True
            self.buf += d
            if until_data:
                return

    def status(self):
        line = self.buf.split(b"\r\n", 1)[0].decode()
        return int(line.split()[1]) if line.startswith("HTTP/1.1 ") else None

    def body(self):
        """The response body, chunked transfer coding undone (as far as it came)."""
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        out = b""
        while rest:
            size, sep, rest = rest.partition(b"\r\n")
            if not sep:
                break
            n = int(size, 16)
            if n == 0:
                out += b"<end>"
                break
            out += rest[:n]
            rest = rest[n + 2:]
        return out.decode()

    def events(self):
        return [json.loads(l[6:]) for l in self.body().split("\n") if l.startswith("data: ")]

    def comments(self):
        return [l for l in self.body().split("\n") if l.startswith(":")]

    def ended(self):
        return self.body().endswith("<end>")

    def wait(self, pred, seconds=5):
        deadline = time.monotonic() + seconds
        while not pred(self) and time.monotonic() < deadline:
            self.pump(deadline - time.monotonic(), until_data=True)
        return pred(self)

    def close(self):
        self.s.close()


def session(h, version=V25):
    """A 2025 session: its id and the headers that name it."""
    st, r, body = h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    check(body["result"]["protocolVersion"] == version, body)
    check(st == 200 and body["result"]["capabilities"]["resources"]["subscribe"] is True, body)
    hd = {"Mcp-Session-Id": r.getheader("Mcp-Session-Id"), "MCP-Protocol-Version": version}
    check(h.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, hd)[0] == 202, "initialized")
    return hd


def get_stream(h, hd):
    return Stream(h, "GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                     "Mcp-Session-Id: %s\r\n\r\n" % hd["Mcp-Session-Id"])


def uri(h, rel):
    return "file://" + h.root + "/" + rel


def write(h, rel, text):
    with open(os.path.join(h.root, rel), "w") as f:
        f.write(text)


def updated(st):
    return [e["params"]["uri"] for e in st.events() if e.get("method") == "notifications/resources/updated"]


def subscribe(h, hd, rel, id=2):
    st, r, body = h.post({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
                          "params": {"uri": uri(h, rel)}}, hd)
    check(st == 200 and body.get("result") == {}, (st, body))


def test_2025_get_stream_carries_the_subscriptions():
    with Http(args=["--http-timeout=2"]) as h:
        write(h, "a.txt", "1\n")
        write(h, "b.txt", "1\n")
        hd = session(h)
        subscribe(h, hd, "a.txt")
        write(h, "a.txt", "2\n")  # before any stream: held for the first one
        time.sleep(0.4)
        st = get_stream(h, hd)
        check(st.wait(lambda s: updated(s) == [uri(h, "a.txt")]), st.buf)
        check(st.status() == 200 and b"text/event-stream" in st.buf.split(b"\r\n\r\n")[0], st.buf)
        write(h, "b.txt", "2\n")  # not subscribed
        write(h, "a.txt", "3\n")
        check(st.wait(lambda s: len(updated(s)) == 2), st.buf)
        check(set(updated(st)) == {uri(h, "a.txt")}, updated(st))
        # quiet: a comment line at least every second (half the timeout), and no timeout
        n = len(st.comments())
        st.pump(2.6)
        check(len(st.comments()) >= n + 2 and not st.eof, (st.comments(), st.eof))
        check(all(e.get("method") == "notifications/resources/updated" and "id" not in e
                  for e in st.events()), st.events())
        # unsubscribed: nothing more
        st2, r, body = h.post({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe",
                               "params": {"uri": uri(h, "a.txt")}}, hd)
        check(st2 == 200, body)
        write(h, "a.txt", "4\n")
        st.pump(0.5)
        check(len(updated(st)) == 2, updated(st))
        # DELETE ends the session and its stream at once
        t = time.monotonic()
        check(h.post(None, hd, method="DELETE")[0] == 204, "DELETE")
        check(st.wait(lambda s: s.ended(), 2) and time.monotonic() - t < 1.5, st.body()[-200:])
        st.close()
        # a GET for no session, or not for events
        st3 = get_stream(h, hd)
        check(st3.wait(lambda s: s.status() is not None) and st3.status() == 404, st3.buf)
        st3.close()
        st, r, body = h.post(None, {"Accept": "text/event-stream"}, method="GET")
        check(st == 405, (st, body))


def test_2025_a_second_get_takes_over():
    with Http() as h:
        write(h, "a.txt", "1\n")
        hd = session(h, "2025-06-18")  # (the other tests: 2025-11-25)
        subscribe(h, hd, "a.txt")
        first = get_stream(h, hd)
        check(first.wait(lambda s: s.comments()), first.buf)
        second = get_stream(h, hd)
        check(second.wait(lambda s: s.comments()), second.buf)
        check(first.wait(lambda s: s.ended()), first.body())
        write(h, "a.txt", "2\n")
        check(second.wait(lambda s: updated(s) == [uri(h, "a.txt")]), second.buf)
        check(updated(first) == [], "each message on one stream only")
        first.close()
        second.close()
        # the client closed its stream: later notifications wait for the next one
        time.sleep(0.3)
        write(h, "a.txt", "3\n")
        time.sleep(0.4)
        third = get_stream(h, hd)
        check(third.wait(lambda s: updated(s) == [uri(h, "a.txt")]), third.buf)
        third.close()


def test_2025_held_notifications_are_bounded():
    with Http() as h:
        hd = session(h)
        for i in range(70):
            write(h, "f%02d" % i, "x")
        for i in range(64):  # the most a session may subscribe to
            subscribe(h, hd, "f%02d" % i, id=10 + i)
        for i in range(64):
            write(h, "f%02d" % i, "y")
        time.sleep(0.5)
        for i in range(64):
            write(h, "f%02d" % i, "z")
        time.sleep(0.5)
        st = get_stream(h, hd)
        st.pump(1.0)
        got = updated(st)
        check(len(got) == 64, "%d notifications held (64 at most)" % len(got))
        check("notification of a 2025 session dropped" in h.stderr(), h.stderr()[-500:])
        st.close()


def test_2025_stream_ends_when_the_server_stops():
    h = Http()
    hd = session(h)
    st = get_stream(h, hd)
    check(st.wait(lambda s: s.comments()), st.buf)
    h.proc.send_signal(2)
    check(st.wait(lambda s: s.ended() or s.eof, 5), st.buf)
    st.close()
    h.close()


def test_2025_unread_stream_is_closed_at_the_timeout():
    with Http(args=["--http-timeout=1", "--log-level=info"]) as h:
        hd = session(h)
        names = ["%02d" % i + "n" * 200 for i in range(64)]  # long URIs: big notifications
        for i, n in enumerate(names):
            write(h, n, "x")
            subscribe(h, hd, n, id=10 + i)
        host, port = h.hostport.rsplit(":", 1)
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, int(port)))
        s.sendall(("GET /mcp HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n"
                   "Mcp-Session-Id: %s\r\n\r\n" % hd["Mcp-Session-Id"]).encode())
        # notifications as fast as they come, never read: the stream's bytes pile up (past
        # STREAM_QUEUED_MAX they are dropped), then the reaper closes it
        stop = time.monotonic() + 20
        while time.monotonic() < stop and "read nothing of its stream" not in h.stderr():
            for n in names:
                write(h, n, str(time.monotonic()))
            time.sleep(0.01)
        check("read nothing of its stream" in h.stderr(), h.stderr()[-800:])
        s.close()
        # the session goes on
        st, r, body = h.post({"jsonrpc": "2.0", "id": 99, "method": "ping"}, hd)
        check(st == 200, (st, body))


def listen(h, id, uris, extra=None):
    body = json.dumps({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "_meta": {PV: MODERN, CAPS: {}},
        "notifications": dict({"resourceSubscriptions": uris}, **(extra or {}))}}).encode()
    return Stream(h, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: %s\r\n"
                     "Mcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n"
                     % (MODERN, len(body)), body)


def test_2026_listen_stream():
    with Http(args=["--http-timeout=2"]) as h:
        write(h, "a.txt", "1\n")
        st, r, d = h.modern("server/discover")
        check(d["result"]["capabilities"]["resources"] == {"subscribe": True, "listChanged": False}, d)
        a = listen(h, "L1", [uri(h, "a.txt")], {"toolsListChanged": True})
        b = listen(h, 7, [uri(h, "a.txt")])
        for s, id in ((a, "L1"), (b, 7)):
            check(s.wait(lambda s: s.events()), s.buf)
            ack = s.events()[0]
            check(ack == {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                          "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id},
                                     "notifications": {"resourceSubscriptions": [uri(h, "a.txt")]}}},
                  ack)
        write(h, "a.txt", "2\n")
        for s, id in ((a, "L1"), (b, 7)):
            check(s.wait(lambda s: len(s.events()) >= 2), s.buf)
            check(s.events()[1]["params"] == {"_meta": {"io.modelcontextprotocol/subscriptionId": id},
                                              "uri": uri(h, "a.txt")}, s.events())
        # quiet: keep-alive comments, no timeout
        a.pump(2.5)
        check(len(a.comments()) >= 2 and not a.eof, a.body())
        # closing b's stream ends b's listen only
        b.close()
        time.sleep(0.5)
        write(h, "a.txt", "3\n")
        check(a.wait(lambda s: len(s.events()) >= 3), a.buf)
        # the server stops: the listen's completion result, then the end of the stream
        h.proc.send_signal(15)
        check(a.wait(lambda s: s.ended(), 5), a.body()[-300:])
        check(a.events()[-1] == {"jsonrpc": "2.0", "id": "L1", "result": {
            "resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "L1"}}},
            a.events()[-1])
        a.close()


def test_2026_closed_listens_make_room():
    # at most 32 listens open at once; a closed stream ends its listen, so 100 in turn all open
    with Http() as h:
        write(h, "a.txt", "1\n")
        for i in range(100):
            s = listen(h, i, [uri(h, "a.txt")])
            check(s.wait(lambda s: s.events()), (i, s.buf))
            check(s.events()[0]["method"] == "notifications/subscriptions/acknowledged", (i, s.events()))
            s.close()
            if i % 30 == 29:
                time.sleep(0.4)  # the session sees the closed streams within 250 ms
        opened = [listen(h, 1000 + i, []) for i in range(33)]
        for s in opened:
            s.wait(lambda s: s.events() or s.status() not in (None, 200))
        refused = [s for s in opened if s.events() and "error" in s.events()[0] or s.status() == 400]
        check(len(refused) >= 1, "33 open listens: none refused")
        for s in opened:
            s.close()


def discover(h):
    """server/discover on a connection of its own, kept open: a Stream."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {PV: MODERN, CAPS: {}}}}).encode()
    return Stream(h, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: %s\r\n"
                     "Mcp-Method: server/discover\r\nContent-Length: %d\r\n\r\n"
                     % (MODERN, len(body)), body)


def test_streams_hold_connections_until_they_end():
    # each open stream is one of --max-connections; ended, it gives its slot back
    with Http(args=["--max-connections=3"]) as h:
        write(h, "a.txt", "1\n")
        hd = session(h)
        g = get_stream(h, hd)
        check(g.wait(lambda s: s.comments()), g.buf)
        lis = listen(h, "L", [uri(h, "a.txt")])
        check(lis.wait(lambda s: s.events()), lis.buf)
        third = discover(h)
        check(third.wait(lambda s: s.status() == 200), third.buf)
        fourth = discover(h)  # the slots are all taken (the third connection is kept open)
        fourth.pump(0.5)
        check(fourth.status() is None, "a fourth connection was served: %r" % fourth.buf)
        third.close()
        check(fourth.wait(lambda s: s.status() == 200), fourth.buf)
        fourth.close()
        # the listen's client leaves: its slot is free again
        lis.close()
        a, b = discover(h), discover(h)
        check(a.wait(lambda s: s.status() == 200) and b.wait(lambda s: s.status() == 200), (a.buf, b.buf))
        a.close()
        b.close()
        # DELETE ends the GET stream, which gives its slot back
        check(h.post(None, hd, method="DELETE")[0] == 204, "DELETE")
        check(g.wait(lambda s: s.eof), g.body()[-100:])
        g.close()
        time.sleep(0.2)
        three = [discover(h) for _ in range(3)]
        for s in three:
            check(s.wait(lambda s: s.status() == 200), s.buf)
            s.close()


if __name__ == "__main__":
    if os.environ.get("HERMES_HTTP") == "no":
        print("SKIP: hermes was configured --without-http (no hermes mcp --listen)")
        sys.exit(77)
    run_tests(globals())
