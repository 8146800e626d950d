# tests/mcp_protocol.py: `hermes mcp` (and `hermes serve` switching to MCP) speaking the Model
# Context Protocol, message by message: version negotiation, the lifecycle, tools/list against the
# verb table, tools/call results and errors, cancellation by notification, progress, logging, the
# workspace from the client's roots, and the end of input.
import json
import os
import re
import subprocess
import tempfile
import time

from server_lib import HERMES, Server, check, expect_error, expect_result, pid_alive, run_tests

VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]


def table_verbs():
    out = subprocess.run([HERMES, "verbs"], stdout=subprocess.PIPE, check=True).stdout.decode()
    return [line.split()[0] for line in out.splitlines()]


def traits(verb):
    first = subprocess.run([HERMES, "schema", verb], stdout=subprocess.PIPE,
                           check=True).stdout.decode().splitlines()[0]
    check(first.startswith("// traits: "), first)
    return set(t.strip() for t in first[len("// traits: "):].split(","))


def mcp(args=(), roots=False, version="2025-06-18", command="mcp", initialized=True):
    s = Server(args=list(args), command=command)
    caps = {"roots": {"listChanged": True}} if roots else {}
    r = expect_result(s.call("initialize", {"protocolVersion": version, "capabilities": caps,
                                            "clientInfo": {"name": "mcp_protocol.py", "version": "1"}}))
    s.init = r
    if initialized:
        s.notify("notifications/initialized")
    return s


def tool(s, name, arguments=None, meta=None, timeout=10.0):
    params = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    if meta is not None:
        params["_meta"] = meta
    return expect_result(s.call("tools/call", params, timeout=timeout))


def test_version_negotiation():
    for v in VERSIONS + ["2099-01-01", "1.0"]:
        with mcp(version=v) as s:
            r = s.init
            check(r["protocolVersion"] == (v if v in VERSIONS else VERSIONS[0]), (v, r))
            check(r["capabilities"]["tools"] == {"listChanged": False}, r)
            check("logging" in r["capabilities"], r)
            check(r["serverInfo"]["name"] == "hermes" and r["serverInfo"]["version"], r)
            check("workspace" in r["instructions"] and "without a shell" in r["instructions"], r)


def test_before_initialize_only_ping():
    with Server(command="mcp") as s:
        check(expect_result(s.call("ping")) == {}, "ping")
        e = expect_error(s.call("tools/list"), -32002)
        check("initialize" in e["message"], e)
        expect_error(s.call("tools/call", {"name": "fs_exists", "arguments": {"path": "x"}}), -32002)
        expect_error(s.call("initialize", {}), -32602)  # no protocolVersion


def test_tools_list_matches_the_table():
    verbs = table_verbs()
    schemas = {v["name"]: v for v in json.loads(subprocess.run(
        [HERMES, "schema", "--format=json-schema"], stdout=subprocess.PIPE, check=True).stdout)}
    with mcp() as s:
        tools = expect_result(s.call("tools/list"))["tools"]
        for t in tools:  # exactly what hermes schema prints
            check(t["inputSchema"] == schemas[t["title"]]["inputSchema"], t["name"])
            check(t["outputSchema"] == schemas[t["title"]]["outputSchema"], t["name"])
            check(t["inputSchema"]["additionalProperties"] is False, t["name"])
            check(set(t["inputSchema"].get("required", [])) <= set(t["inputSchema"]["properties"]), t)
        names = [t["name"] for t in tools]
        check(sorted(names) == sorted(v.replace(".", "_") for v in verbs), names)
        for t in tools:
            check(re.match(r"^[a-zA-Z0-9_-]{1,64}$", t["name"]), t["name"])
            verb = t["title"]
            check(verb.replace(".", "_") == t["name"], t)
            check(t["description"] and t["inputSchema"]["type"] == "object", t)
            tr = traits(verb)
            a = t["annotations"]
            check(a["readOnlyHint"] == ("read-only" in tr), (verb, a, tr))
            check(a["destructiveHint"] == ("destructive" in tr), (verb, a, tr))
            check(a["idempotentHint"] == ("idempotent" in tr), (verb, a, tr))
            check(a["openWorldHint"] == ("spawns" in tr), (verb, a, tr))


def test_tools_call_results_and_errors():
    with mcp() as s:
        s.write_file("a.txt", b"one\ntwo\nthree\n")
        r = tool(s, "fs_readRange", {"path": "a.txt", "startLine": 2, "endLine": 3})
        check(r["isError"] is False, r)
        check(r["structuredContent"]["content"] == "2: two\n3: three\n", r)
        check(json.loads(r["content"][0]["text"]) == r["structuredContent"], r)
        check(r["content"][0]["type"] == "text", r)
        # the dotted verb name works too
        r2 = tool(s, "fs.readRange", {"path": "a.txt", "startLine": 2, "endLine": 3})
        check(r2 == r, (r, r2))
        # a verb that fails: a result with isError
        r = tool(s, "fs_readFile", {"path": "missing.txt"})
        check(r["isError"] is True and r["structuredContent"]["errorCode"] == "NotFound", r)
        # arguments the decoder refuses: a result the model can read, not a protocol error
        r = tool(s, "fs_readRange", {"path": "a.txt", "startLine": "two"})
        check(r["isError"] is True and r["structuredContent"]["errorCode"] == "InvalidArguments", r)
        check("startLine" in r["content"][0]["text"], r)
        r = tool(s, "fs_exists", {"path": "a.txt\u0000x"})
        check(r["isError"] is True and "NUL" in r["structuredContent"]["errorMessage"], r)
        # an unknown tool is a protocol error
        e = expect_error(s.call("tools/call", {"name": "fs_teleport", "arguments": {}}), -32602)
        check("fs_teleport" in e["message"], e)
        expect_error(s.call("tools/call", {"arguments": {}}), -32602)
        expect_error(s.call("no/such/method"), -32601)
        # tool calls run in parallel and all come back
        ids = [s.request("tools/call", {"name": "fs_exists", "arguments": {"path": "a.txt"}})
               for _ in range(50)]
        for i in ids:
            check(expect_result(s.reply_to(i))["structuredContent"]["exists"] is True, i)


def test_cancelled_notification_stops_a_run_without_a_reply():
    with mcp() as s:
        id = s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "echo $$ > pid; exec sleep 30"]}})
        s.wait_for_file("pid")
        time.sleep(0.05)
        pid = int(open(os.path.join(s.root, "pid")).read())
        check(pid_alive(pid), "sleep is not running")
        t0 = time.monotonic()
        s.notify("notifications/cancelled", {"requestId": id, "reason": "test"})
        while pid_alive(pid) and time.monotonic() - t0 < 5:
            time.sleep(0.01)
        gone = time.monotonic() - t0
        check(not pid_alive(pid) and gone < 1.0, "sleep still running after %.2f s" % gone)
        s.expect_silence(0.5)  # no response for a cancelled request
        check(expect_result(s.call("ping")) == {}, "alive")


def test_progress_rises():
    with mcp() as s:
        id = s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "sleep 0.6; echo done"]},
            "_meta": {"progressToken": "p-1"}})
        progress = []
        while True:
            m = s.recv()
            if m.get("method") == "notifications/progress":
                check(m["params"]["progressToken"] == "p-1", m)
                check(isinstance(m["params"]["message"], str), m)
                progress.append(m["params"]["progress"])
                continue
            check(m.get("id") == id, m)
            check(m["result"]["isError"] is False, m)
            break
        check(len(progress) >= 3, progress)
        check(all(a < b for a, b in zip(progress, progress[1:])), progress)
        check(len(progress) <= 0.6 * 10 + 3, "more than 10 a second: %r" % progress)
        # without a token, no progress
        r = tool(s, "proc_run", {"executable": "sh", "arguments": ["-c", "sleep 0.3"]})
        check(r["isError"] is False, r)
        s.expect_silence(0.2)


def test_progress_of_reads_copies_and_deletions():
    # the verbs that work through many bytes or entries report them, with the total when known
    with mcp() as s:
        size = 64 << 20
        with open(os.path.join(s.root, "big.txt"), "wb") as f:
            f.write(b"x" * 1023 + b"\n")
            f.truncate(size)  # sparse: cheap to make, as long to read
        for n, (name, args) in enumerate([("fs_lineCount", {"path": "big.txt"}),
                                          ("fs_copyFile", {"sourcePath": "big.txt",
                                                           "destinationPath": "copy.txt"})]):
            token = "t%d" % n
            id = s.request("tools/call", {"name": name, "arguments": args,
                                          "_meta": {"progressToken": token}})
            seen = []
            while True:
                m = s.recv(30)
                if m.get("method") == "notifications/progress":
                    check(m["params"]["progressToken"] == token, m)
                    seen.append(m["params"])
                    continue
                check(m.get("id") == id and m["result"]["isError"] is False, m)
                break
            check(seen, "%s sent no progress" % name)
            check(all(p["total"] == size and 0 < p["progress"] <= size for p in seen), seen)


def test_read_only_hides_and_refuses():
    with mcp(args=["--read-only", "--deny=sys.*"]) as s:
        names = [t["name"] for t in expect_result(s.call("tools/list"))["tools"]]
        check("fs_readRange" in names and "fs_writeFile" not in names and "proc_run" not in names
              and "sys_machineInfo" not in names, names)
        for t in expect_result(s.call("tools/list"))["tools"]:
            check(t["annotations"]["readOnlyHint"] is True, t["name"])
        r = tool(s, "fs_writeFile", {"path": "x.txt", "content": "x"})
        check(r["isError"] is True and r["structuredContent"]["errorCode"] == "NotAllowed", r)
        check(not os.path.exists(os.path.join(s.root, "x.txt")), "written under --read-only")


def test_logging_set_level():
    with mcp() as s:
        check(expect_result(s.call("logging/setLevel", {"level": "error"})) == {}, "setLevel")
        expect_error(s.call("logging/setLevel", {"level": "loud"}), -32602)


def test_roots_give_the_workspace():
    with Server(command="mcp") as s:
        ws = os.path.join(s.tmp, "project")
        os.mkdir(ws)
        with open(os.path.join(ws, "only-here.txt"), "w") as f:
            f.write("x\n")
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18",
                                            "capabilities": {"roots": {"listChanged": True}},
                                            "clientInfo": {"name": "t", "version": "1"}}))
        # before the client says it is initialized, no roots/list is sent, and a tool call waits
        early = s.request("tools/call", {"name": "fs_exists", "arguments": {"path": "only-here.txt"}})
        s.expect_silence(0.2)
        s.notify("notifications/initialized")
        ask = s.recv()
        check(ask.get("method") == "roots/list" and "id" in ask, ask)
        s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [
            {"uri": "https://example.com/x", "name": "web"},
            {"uri": "file://" + ws.replace(" ", "%20"), "name": "project"}]}})
        r = expect_result(s.reply_to(early))  # run in the client's root once it is known
        check(r["structuredContent"]["exists"] is True, r)
        r = tool(s, "fs_exists", {"path": "only-here.txt"})
        check(r["structuredContent"]["exists"] is True, r)
        # the roots change: asked again, and the new first root is used
        ws2 = os.path.join(s.tmp, "other")
        os.mkdir(ws2)
        s.notify("notifications/roots/list_changed")
        ask = s.recv()
        check(ask.get("method") == "roots/list", ask)
        s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file://" + ws2}]}})
        r = tool(s, "fs_exists", {"path": "only-here.txt"})
        check(r["structuredContent"]["exists"] is False, r)


def test_roots_answered_empty_late_or_never():
    # an empty list: the current directory (as for a client without roots), said on stderr
    with mcp(roots=True) as s:
        s.write_file("here.txt", "x\n")
        ask = s.recv()
        call = s.request("tools/call", {"name": "fs_exists", "arguments": {"path": "here.txt"}})
        s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": []}})
        r = expect_result(s.reply_to(call))
        check(r["isError"] is False and r["structuredContent"]["exists"] is True, r)
        time.sleep(0.1)
        check("empty roots/list" in s.stderr() and s.root in s.stderr(), s.stderr())
    # an error answer: the same
    with mcp(roots=True) as s:
        ask = s.recv()
        s.send({"jsonrpc": "2.0", "id": ask["id"], "error": {"code": -32601, "message": "no roots"}})
        check(tool(s, "fs_exists", {"path": "."})["structuredContent"]["exists"] is True, "error answer")
    # never answered: the calls waiting are refused after 10 s with -32602, saying why
    with mcp(roots=True) as s:
        ask = s.recv()
        check(ask.get("method") == "roots/list", ask)
        t0 = time.monotonic()
        ids = [s.request("tools/call", {"name": "fs_exists", "arguments": {"path": "."}}) for _ in range(3)]
        for i in ids:
            e = expect_error(s.reply_to(i, timeout=15), -32602)
            check("roots/list" in e["message"] and "--root" in e["message"], e)
        took = time.monotonic() - t0
        check(9 < took < 13, "refused after %.1f s" % took)


def test_root_option_means_no_roots_request():
    with tempfile.TemporaryDirectory(prefix="hermes-mcp-root.") as ws, \
         Server(command="mcp", args=["--root", ws]) as s:
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18",
                                            "capabilities": {"roots": {}}}))
        s.notify("notifications/initialized")
        r = tool(s, "fs_writeFile", {"path": "f.txt", "content": "hi\n"})
        check(r["isError"] is False, r)
        check(os.path.exists(os.path.join(ws, "f.txt")), "written elsewhere")
        s.expect_silence(0.2)  # and no roots/list was sent


def test_end_of_input_cancels_long_calls_and_exits():
    with mcp() as s:
        s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "echo $$ > pid; exec sleep 30"]}})
        s.wait_for_file("pid")
        time.sleep(0.05)
        pid = int(open(os.path.join(s.root, "pid")).read())
        quick = s.request("tools/call", {"name": "fs_exists", "arguments": {"path": "pid"}})
        t0 = time.monotonic()
        s.close_stdin()
        status = s.wait(5)
        took = time.monotonic() - t0
        check(status == 0 and took < 2.0, "exit %r after %.2f s" % (status, took))
        check(not pid_alive(pid), "the program outlived the session")
        # a quick call sent just before the end is still answered; the stopped one is not
        replies = s.read_to_eof()
        check([r.get("id") for r in replies] == [quick], replies)


def test_serve_switches_to_mcp_on_its_initialize():
    with mcp(command="serve") as s:
        check(s.init["protocolVersion"] == "2025-06-18", s.init)
        r = tool(s, "fs_exists", {"path": "."})
        check(r["structuredContent"]["exists"] is True, r)
    with Server(args=["--protocol=hermes"]) as s:
        r = expect_result(s.call("initialize", {"protocolVersion": "2025-06-18"}))
        check("protocolVersion" not in r and "verbs" in r["capabilities"], r)


run_tests(globals())
