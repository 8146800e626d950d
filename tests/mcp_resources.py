# tests/mcp_resources.py: the workspace's files as MCP resources over stdio, in both eras (a 2025
# session and 2026-07-28 requests to one process): the capability, resources/list in pages that
# reach every file exactly once (ignore files honoured, no directories), the path template,
# resources/read of text and of bytes, refusals outside the workspace, and the policy of the verbs
# (--deny, --allow, --read-only, --max-read-bytes).
import base64
import os
import time

from server_lib import Server, check, expect_error, expect_result, run_tests

PV = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"


def session(args=()):
    s = Server(args=list(args), command="mcp")
    r = expect_result(s.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "mcp_resources.py", "version": "1"}}))
    s.init = r
    s.notify("notifications/initialized")
    return s


def call(s, modern, method, params=None):
    """A request of the 2025 session, or (modern) a 2026-07-28 one; returns the raw reply."""
    p = dict(params or {})
    if modern:
        p["_meta"] = {PV: "2026-07-28", CAPS: {}, INFO: {"name": "mcp_resources.py", "version": "1"}}
    return s.call(method, p)


def result(s, modern, method, params=None):
    r = expect_result(call(s, modern, method, params))
    if modern:
        check(r.get("resultType") == "complete", r)
    return r


def uri(s, rel):
    return "file://" + s.root + "/" + rel


def list_all(s, modern):
    """Every resource, page after page: (uris, pages)."""
    uris, pages, cursor = [], 0, None
    while True:
        r = result(s, modern, "resources/list", {"cursor": cursor} if cursor else {})
        pages += 1
        check(pages < 100, "resources/list never ends")
        for res in r["resources"]:
            check(set(res) >= {"uri", "name"} and res["uri"] == uri(s, res["name"]), res)
            uris.append(res["uri"])
        cursor = r.get("nextCursor")
        if cursor is None:
            return uris, pages
        check(isinstance(cursor, str) and r["resources"], r)


def test_capability_both_eras():
    with session() as s:
        check(s.init["capabilities"]["resources"] == {"subscribe": True, "listChanged": False}, s.init)
        d = result(s, True, "server/discover")
        # subscriptions/listen is served (over HTTP too: tests/mcp_subscribe_http.py)
        check(d["capabilities"]["resources"] == {"subscribe": True, "listChanged": False}, d)


def test_list_reaches_every_file_once():
    with session() as s:
        want = set()
        for i in range(230):
            rel = "d%d/f%03d.txt" % (i % 3, i)
            s.write_file(rel, "file %d\n" % i)
            want.add(uri(s, rel))
        s.write_file("top.bin", b"\x00\x01")
        want.add(uri(s, "top.bin"))
        s.write_file(".ignore", "skipped/\n*.log\n")
        s.write_file("skipped/a.txt", "no\n")
        s.write_file("x.log", "no\n")
        for modern in (False, True):
            uris, pages = list_all(s, modern)
            check(pages == 2, pages)  # 231 files, 200 a page
            check(len(uris) == len(set(uris)), "a file listed twice")
            check(set(uris) == want, sorted(set(uris) ^ want)[:10])
            check(uris == sorted(uris), "not in a stable sorted order")
        # a file created between pages, before the cursor, is not listed twice or in the way
        first = result(s, False, "resources/list")
        s.write_file("a_new.txt", "new\n")
        rest = result(s, False, "resources/list", {"cursor": first["nextCursor"]})
        names = [r["name"] for r in first["resources"] + rest["resources"]]
        check(len(names) == len(set(names)), "duplicates across pages")
        expect_error(call(s, False, "resources/list", {"cursor": 5}), -32602)


def test_templates():
    with session() as s:
        for modern in (False, True):
            r = result(s, modern, "resources/templates/list")
            t = r["resourceTemplates"]
            check(len(t) == 1 and t[0]["uriTemplate"] == "file://" + s.root + "/{+path}", t)


def test_read_text_and_bytes():
    with session() as s:
        s.write_file("a.txt", "one\ntwo\n")
        data = bytes(range(256)) * 3
        s.write_file("b.bin", data)
        s.write_file("dir with space/é.txt", "accent\n")
        for modern in (False, True):
            r = result(s, modern, "resources/read", {"uri": uri(s, "a.txt")})
            c = r["contents"]
            check(len(c) == 1 and c[0]["text"] == "one\ntwo\n" and c[0]["mimeType"].startswith("text/"), c)
            check(c[0]["uri"] == uri(s, "a.txt") and "blob" not in c[0], c)
            r = result(s, modern, "resources/read", {"uri": uri(s, "b.bin")})
            c = r["contents"][0]
            check(base64.b64decode(c["blob"]) == data and "text" not in c and c["mimeType"], c)
            # the URI resources/list gives (percent-encoded) reads the file
            listed = [x["uri"] for x in result(s, modern, "resources/list")["resources"]
                      if x["name"] == "dir with space/é.txt"]
            check(len(listed) == 1 and "%20" in listed[0], listed)
            r = result(s, modern, "resources/read", {"uri": listed[0]})
            check(r["contents"][0]["text"] == "accent\n", r)


def test_read_refusals():
    with session() as s:
        s.write_file("a.txt", "x\n")
        for modern in (False, True):
            e = expect_error(call(s, modern, "resources/read", {"uri": "file:///etc/passwd"}), -32002)
            check("workspace" in e["message"], e)
            e = expect_error(call(s, modern, "resources/read", {"uri": uri(s, "missing.txt")}), -32002)
            check("NotFound" in e["message"], e)
            e = expect_error(call(s, modern, "resources/read", {"uri": uri(s, "../../etc/passwd")}), -32602)
            check("OutsideWorkspace" in e["message"] or "workspace" in e["message"], e)
            expect_error(call(s, modern, "resources/read", {"uri": "https://example.com/a.txt"}), -32602)
            expect_error(call(s, modern, "resources/read", {}), -32602)
            e = expect_error(call(s, modern, "resources/read", {"uri": uri(s, "")}), -32002)


def test_policy():
    with session(["--deny=fs.readBytes"]) as s:
        s.write_file("a.txt", "x\n")
        for modern in (False, True):
            e = expect_error(call(s, modern, "resources/read", {"uri": uri(s, "a.txt")}), -32602)
            check("fs.readBytes" in e["message"], e)
            check(len(result(s, modern, "resources/list")["resources"]) == 1, "listing is fs.glob's")
    with session(["--allow=fs.readBytes,fs.readFile"]) as s:
        s.write_file("a.txt", "x\n")
        e = expect_error(call(s, False, "resources/list"), -32602)
        check("fs.glob" in e["message"], e)
        check(result(s, False, "resources/read", {"uri": uri(s, "a.txt")})["contents"][0]["text"] == "x\n", s)
    with session(["--read-only"]) as s:
        s.write_file("a.txt", "x\n")
        check(result(s, True, "resources/read", {"uri": uri(s, "a.txt")})["contents"][0]["text"] == "x\n", s)
    with session(["--max-read-bytes=100"]) as s:
        s.write_file("big.txt", "y" * 200)
        e = expect_error(call(s, False, "resources/read", {"uri": uri(s, "big.txt")}), -32602)
        check("TooLarge" in e["message"], e)


def updates(s, seconds):
    """The uris of notifications/resources/updated that come within seconds (others kept)."""
    got, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            m = s.recv(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:
            break
        if m.get("method") == "notifications/resources/updated":
            got.append(m["params"]["uri"])
    return got


def test_subscribe_2025():
    with session() as s:
        s.write_file("a.txt", "one\n")
        s.write_file("sub/b.txt", "one\n")
        s.write_file("c.txt", "one\n")
        for rel in ("a.txt", "sub/b.txt", "not-yet.txt"):
            check(expect_result(call(s, False, "resources/subscribe", {"uri": uri(s, rel)})) == {}, rel)
        check(updates(s, 0.3) == [], "a notification before any change")
        s.write_file("a.txt", "two\n")
        got = updates(s, 1.5)
        check(got and set(got) == {uri(s, "a.txt")}, got)
        s.write_file("c.txt", "two\n")  # not subscribed
        check(updates(s, 0.5) == [], "c.txt was not subscribed")
        s.write_file("sub/b.txt", "two\n")
        s.write_file("not-yet.txt", "made\n")
        got = updates(s, 1.5)
        check(set(got) == {uri(s, "sub/b.txt"), uri(s, "not-yet.txt")}, got)
        os.rename(os.path.join(s.root, "a.txt"), os.path.join(s.root, "moved.txt"))
        check(uri(s, "a.txt") in updates(s, 1.5), "a move away is a change")
        expect_result(call(s, False, "resources/unsubscribe", {"uri": uri(s, "sub/b.txt")}))
        s.write_file("sub/b.txt", "three\n")
        check(updates(s, 0.5) == [], "after unsubscribe")
        # bounded, confined, and only with the read verbs allowed
        for i in range(62):
            expect_result(call(s, False, "resources/subscribe", {"uri": uri(s, "f%d" % i)}))
        e = expect_error(call(s, False, "resources/subscribe", {"uri": uri(s, "one-more")}), -32602)
        check("64" in e["message"], e)
        expect_error(call(s, False, "resources/subscribe", {"uri": "file:///etc/passwd"}), -32002)
        expect_error(call(s, False, "resources/subscribe", {"uri": uri(s, "x/../a.txt")}), -32602)
        expect_error(call(s, False, "resources/subscribe", {}), -32602)
        # the 2026 era has subscriptions/listen instead
        expect_error(call(s, True, "resources/subscribe", {"uri": uri(s, "c.txt")}), -32601)
    with session(["--deny=fs.readBytes"]) as s:
        e = expect_error(call(s, False, "resources/subscribe", {"uri": uri(s, "a.txt")}), -32602)
        check("fs.readBytes" in e["message"], e)


def listen(s, id, uris, **extra):
    p = {"_meta": {PV: "2026-07-28", CAPS: {}, INFO: {"name": "mcp_resources.py", "version": "1"}},
         "notifications": dict({"resourceSubscriptions": uris}, **extra)}
    s.send({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": p})


def notes(s, seconds, method="notifications/resources/updated"):
    """(subscriptionId, params) of the notifications of method within seconds."""
    got, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            m = s.recv(timeout=max(0.01, deadline - time.monotonic()))
        except Exception:
            break
        if m.get("method") == method:
            got.append((m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], m["params"]))
        else:
            s.pending.append(m)
            if "id" in m:
                break
    return got


def test_listen_2026():
    with Server(command="mcp") as s:
        s.write_file("a.txt", "one\n")
        s.write_file("b.txt", "one\n")
        listen(s, "L1", [uri(s, "a.txt")], toolsListChanged=True)
        ack = notes(s, 1.0, "notifications/subscriptions/acknowledged")
        # what is honoured: the resource, not the list changes Hermes never announces
        check(ack == [("L1", {"_meta": {"io.modelcontextprotocol/subscriptionId": "L1"},
                              "notifications": {"resourceSubscriptions": [uri(s, "a.txt")]}})], ack)
        listen(s, 7, [uri(s, "a.txt"), uri(s, "b.txt")])
        check([a[0] for a in notes(s, 1.0, "notifications/subscriptions/acknowledged")] == [7], "ack 7")
        s.write_file("a.txt", "two\n")
        got = notes(s, 1.5)
        # (a write may come as two changes, its data and its close, so each at least once)
        check(sorted(set((str(i), p["uri"]) for i, p in got)) == [("7", uri(s, "a.txt")), ("L1", uri(s, "a.txt"))], got)
        s.write_file("b.txt", "two\n")
        got = notes(s, 1.0)
        check(got and all(g == (7, {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}, "uri": uri(s, "b.txt")}) for g in got), got)
        # cancelled: no reply, no more notifications for it
        s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {
            "_meta": {PV: "2026-07-28", CAPS: {}, INFO: {"name": "t", "version": "1"}}, "requestId": "L1"}})
        time.sleep(0.1)
        s.write_file("a.txt", "three\n")
        got = notes(s, 1.0)
        check(got and set(i for i, _ in got) == {7}, got)
        # refusals answer the request at once
        listen(s, 8, ["file:///etc/passwd"])
        expect_error(s.reply_to(8), -32002)
        listen(s, 9, "not a list")
        expect_error(s.reply_to(9), -32602)
        listen(s, 10, [uri(s, "f%d" % i) for i in range(70)])
        expect_error(s.reply_to(10), -32602)
        # the end of input ends the open one gracefully
        s.close_stdin()
        end = s.reply_to(7)
        check(end["result"] == {"resultType": "complete",
                                "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}, end)


def test_http_2026_resources_and_listen():
    """Over Streamable HTTP: resources/read needs Mcp-Name (the URI); listen answers with a stream
    (more of it in tests/mcp_subscribe_http.py)."""
    import json
    import re
    import subprocess
    import tempfile
    import urllib.request
    from server_lib import HERMES
    if os.environ.get("HERMES_HTTP") == "no":
        print("SKIP (part): no Streamable HTTP in this build")
        return
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-res-http."))
    with open(os.path.join(ws, "a.txt"), "w") as f:
        f.write("over http\n")
    err = open(os.path.join(ws, ".err"), "w+")
    p = subprocess.Popen([HERMES, "mcp", "--root", ws, "--listen=127.0.0.1:0"], stderr=err)
    try:
        url = None
        for _ in range(500):
            err.seek(0)
            m = re.search(r"listening on (http://\S+)", err.read())
            if m:
                url = m.group(1)
                break
            time.sleep(0.01)
        check(url, "no listening line")

        def post(method, params, name=None):
            params = dict(params, _meta={PV: "2026-07-28", CAPS: {}, INFO: {"name": "t", "version": "1"}})
            h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                 "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
            if name:
                h["Mcp-Name"] = name
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
            try:
                with urllib.request.urlopen(urllib.request.Request(url, body, h), timeout=10) as r:
                    return r.status, json.loads(r.read())
            except urllib.error.HTTPError as e:
                return e.code, json.loads(e.read() or b"null")
        u = "file://" + ws + "/a.txt"
        st, r = post("resources/read", {"uri": u}, name=u)
        check(st == 200 and r["result"]["contents"][0]["text"] == "over http\n", (st, r))
        st, r = post("resources/read", {"uri": u})
        check(st == 400, (st, r))  # Mcp-Name missing
        params = {"_meta": {PV: "2026-07-28", CAPS: {}, INFO: {"name": "t", "version": "1"}},
                  "notifications": {"resourceSubscriptions": [u]}}
        body = json.dumps({"jsonrpc": "2.0", "id": "L", "method": "subscriptions/listen",
                           "params": params}).encode()
        with urllib.request.urlopen(urllib.request.Request(url, body, {
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}),
                timeout=10) as r:
            check(r.status == 200 and r.headers["Content-Type"] == "text/event-stream", r.headers)
            line = b""
            while not line.startswith(b"data: "):
                line = r.readline()
            ack = json.loads(line[6:])
            check(ack["method"] == "notifications/subscriptions/acknowledged"
                  and ack["params"]["notifications"] == {"resourceSubscriptions": [u]}, ack)
        st, r = post("server/discover", {})
        check(r["result"]["capabilities"]["resources"]["subscribe"] is True, r)
    finally:
        p.terminate()
        p.wait(10)
        err.close()
        import shutil
        shutil.rmtree(ws, ignore_errors=True)


run_tests(globals())
