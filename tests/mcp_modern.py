# tests/mcp_modern.py: `hermes mcp` in the stateless MCP revision 2026-07-28 over stdio, message by
# message: server/discover, the per-request _meta (version, capabilities, log level) and its
# errors (-32602, -32022), resultType and serverInfo on every result, the cache hints of
# tools/list, the methods the revision removed, progress and cancellation, and both eras served
# by one process.
import json
import os
import time

from server_lib import Server, check, expect_error, expect_result, pid_alive, run_tests

MODERN = "2026-07-28"
SUPPORTED = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
PV = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
INFO = "io.modelcontextprotocol/clientInfo"
LEVEL = "io.modelcontextprotocol/logLevel"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def meta(**extra):
    m = {PV: MODERN, CAPS: {}, INFO: {"name": "mcp_modern.py", "version": "1"}}
    m.update(extra)
    return m


def call(s, method, params=None, timeout=10.0, **extra):
    p = dict(params or {})
    p["_meta"] = dict(meta(), **p.get("_meta", {}))
    return s.call(method, p, timeout=timeout)


def complete(reply):
    r = expect_result(reply)
    check(r.get("resultType") == "complete", r)
    check(r["_meta"][SERVER_INFO]["name"] == "hermes" and r["_meta"][SERVER_INFO]["version"], r)
    return r


def tool(s, name, arguments, **meta_extra):
    return complete(call(s, "tools/call", {"name": name, "arguments": arguments, "_meta": meta_extra}))


def test_discover():
    with Server(command="mcp") as s:
        r = complete(call(s, "server/discover"))
        check(r["supportedVersions"] == SUPPORTED, r)
        check(r["capabilities"]["tools"] == {"listChanged": False}, r)
        check("workspace" in r["instructions"], r)
        check(r["cacheScope"] == "public" and isinstance(r["ttlMs"], int) and r["ttlMs"] >= 0, r)
        # the era is per request: nothing here began a session
        r2 = complete(call(s, "server/discover"))
        check(r2 == r, (r, r2))


def test_tools_list_and_call():
    with Server(command="mcp") as s:
        r = complete(call(s, "tools/list"))
        check(r["cacheScope"] == "public" and r["ttlMs"] >= 0, r)
        names = [t["name"] for t in r["tools"]]
        check("fs_readRange" in names and "proc_run" in names, names)
        check(complete(call(s, "tools/list"))["tools"] == r["tools"], "a fixed order")
        s.write_file("a.txt", b"one\ntwo\n")
        t = tool(s, "fs_readRange", {"path": "a.txt", "startLine": 2, "endLine": 2})
        check(t["isError"] is False and t["structuredContent"]["content"] == "2: two\n", t)
        check(json.loads(t["content"][0]["text"]) == t["structuredContent"], t)
        t = tool(s, "fs_readRange", {"path": "a.txt", "startLine": "two"})
        check(t["isError"] is True and "startLine" in t["content"][0]["text"], t)
        e = expect_error(call(s, "tools/call", {"name": "fs_teleport", "arguments": {}}), -32602)
        check("fs_teleport" in e["message"], e)


def test_same_tools_as_the_2025_era():
    with Server(command="mcp") as s:
        modern = complete(call(s, "tools/list"))["tools"]
        # the policy applies to both
    with Server(command="mcp", args=["--read-only"]) as s:
        names = [t["name"] for t in complete(call(s, "tools/list"))["tools"]]
        check("fs_readRange" in names and "proc_run" not in names and "fs_writeFile" not in names, names)
        t = complete(call(s, "tools/call", {"name": "fs_writeFile", "arguments": {"path": "x", "content": ""}}))
        check(t["isError"] is True and t["structuredContent"]["errorCode"] == "NotAllowed", t)
    with Server(command="mcp") as s:
        expect_result(s.call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
        s.notify("notifications/initialized")
        legacy = expect_result(s.call("tools/list"))["tools"]
    check(modern == legacy, "the eras list different tools")


def test_meta_errors():
    with Server(command="mcp") as s:
        # no version, no capabilities: -32602 naming the field
        e = expect_error(s.call("tools/list", {"_meta": {CAPS: {}, INFO: {"name": "x", "version": "1"}}}),
                         -32602)
        check(PV in e["message"], e)
        # no 2026 _meta at all: a 2025 request, which needs initialize first
        e = expect_error(s.call("tools/list", {"_meta": {INFO: {"name": "x", "version": "1"}}}), -32002)
        check("initialize" in e["message"], e)
        e = expect_error(s.call("server/discover", {"_meta": {PV: MODERN}}), -32602)
        check(CAPS in e["message"], e)
        e = expect_error(s.call("server/discover", {"_meta": {PV: MODERN, CAPS: []}}), -32602)
        check(CAPS in e["message"], e)
        e = expect_error(s.call("server/discover", {"_meta": {PV: 2026, CAPS: {}}}), -32602)
        check(PV in e["message"], e)
        e = expect_error(s.call("server/discover", {"_meta": "2026-07-28"}), -32602)
        e = expect_error(s.call("server/discover"), -32602)
        check(PV in e["message"], e)
        # a version hermes does not speak: -32022 with what it does
        for v in ["1900-01-01", "2026-07-29", "2025-11-25"]:
            e = expect_error(s.call("tools/list", {"_meta": {PV: v, CAPS: {}}}), -32022)
            check(e["data"] == {"supported": SUPPORTED, "requested": v}, e)
            check(v in e["message"], e)
        # a bad log level
        e = expect_error(call(s, "tools/list", {"_meta": {LEVEL: "loud"}}), -32602)
        check(LEVEL in e["message"], e)
        # the revision removed these; initialize is the 2025 handshake, not a modern request
        expect_error(call(s, "ping"), -32601)
        expect_error(call(s, "logging/setLevel", {"level": "debug"}), -32601)
        expect_error(call(s, "no/such/method"), -32601)
        # and a modern request is answered with the modern shape afterwards
        complete(call(s, "server/discover"))


def test_progress_and_cancellation():
    with Server(command="mcp") as s:
        id = s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "sleep 0.5; echo done"]},
            "_meta": meta(progressToken=7)})
        progress = []
        while True:
            m = s.recv()
            if m.get("method") == "notifications/progress":
                check(m["params"]["progressToken"] == 7, m)
                progress.append(m["params"]["progress"])
                continue
            check(m.get("id") == id and m["result"]["resultType"] == "complete", m)
            break
        check(len(progress) >= 2 and all(a < b for a, b in zip(progress, progress[1:])), progress)
        id = s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "echo $$ > pid; exec sleep 30"]}, "_meta": meta()})
        s.wait_for_file("pid")
        time.sleep(0.05)
        pid = int(open(os.path.join(s.root, "pid")).read())
        t0 = time.monotonic()
        s.notify("notifications/cancelled", {"requestId": id, "_meta": meta()})
        while pid_alive(pid) and time.monotonic() - t0 < 5:
            time.sleep(0.01)
        check(not pid_alive(pid) and time.monotonic() - t0 < 1.0, "sleep still running")
        s.expect_silence(0.3)
        complete(call(s, "server/discover"))


def test_log_messages_only_when_asked():
    with Server(command="mcp") as s:
        # a failing verb is worth a warning, sent only to a request that asked with logLevel
        r = tool(s, "fs_readFile", {"path": "missing.txt"})
        check(r["isError"] is True, r)
        s.expect_silence(0.2)
        id = s.request("tools/call", {"name": "fs_readFile", "arguments": {"path": "missing.txt"},
                                      "_meta": meta(**{LEVEL: "debug"})})
        seen = []
        while True:
            m = s.recv()
            if m.get("method") == "notifications/message":
                seen.append(m["params"])
                continue
            check(m.get("id") == id, m)
            break
        check(seen and all(p["level"] in ("debug", "info", "warning") for p in seen), seen)
        check(any("missing.txt" in json.dumps(p["data"]) for p in seen), seen)
        # at error, the warning is not sent
        id = s.request("tools/call", {"name": "fs_readFile", "arguments": {"path": "missing.txt"},
                                      "_meta": meta(**{LEVEL: "error"})})
        m = s.recv()
        check(m.get("id") == id, m)


def test_both_eras_in_one_process():
    with Server(command="mcp") as s:
        complete(call(s, "server/discover"))
        # a 2025 client in the same process: its handshake, its shapes
        init = expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}}))
        check(init["protocolVersion"] == "2025-06-18", init)
        s.notify("notifications/initialized")
        r = expect_result(s.call("tools/call", {"name": "fs_exists", "arguments": {"path": "."}}))
        check("resultType" not in r and r["structuredContent"]["exists"] is True, r)
        check(expect_result(s.call("ping")) == {}, "ping")
        # and modern requests still get the modern rules
        r = tool(s, "fs_exists", {"path": "."})
        check(r["structuredContent"]["exists"] is True, r)


def test_no_batches_in_2026():
    """The 2026-07-28 revision has no JSON-RPC batches: over HTTP a POST of an array is refused
    (400, -32600); on stdio each 2026 request in a batch is answered -32600 and not run, while a
    2025 request in the same batch runs as before."""
    with Server(command="mcp") as s:
        marker = os.path.join(s.root, "made-by-a-batch")
        s.send([{"jsonrpc": "2.0", "id": "a", "method": "tools/call",
                 "params": {"name": "fs_writeFile", "arguments": {"path": "made-by-a-batch",
                                                                  "content": "x"},
                            "_meta": meta()}},
                {"jsonrpc": "2.0", "id": "b", "method": "server/discover", "params": {"_meta": meta()}}])
        r = s.recv()
        check(isinstance(r, list) and sorted(m["id"] for m in r) == ["a", "b"], r)
        for m in r:
            check(m.get("error", {}).get("code") == -32600 and "batch" in m["error"]["message"], m)
        check(not os.path.exists(marker), "a 2026 request in a batch ran")
        # a 2025 session's batch still runs (2025-03-26 has batches)
        expect_result(s.call("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}}))
        s.notify("notifications/initialized")
        s.send([{"jsonrpc": "2.0", "id": "c", "method": "tools/call",
                 "params": {"name": "fs_exists", "arguments": {"path": "."}}},
                {"jsonrpc": "2.0", "id": "d", "method": "tools/call",
                 "params": {"name": "fs_exists", "arguments": {"path": "."}, "_meta": meta()}}])
        r = s.recv()
        by_id = {m["id"]: m for m in r}
        check(by_id["c"]["result"]["structuredContent"]["exists"] is True, r)
        check(by_id["d"]["error"]["code"] == -32600, r)


run_tests(globals())
