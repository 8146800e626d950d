# tests/proc_start.py: programs that keep running (proc.start, proc.output, proc.write, proc.stop,
# proc.list) through the real binary: hermes serve (a dev server waited for, requested and read),
# hermes mcp (a REPL under a terminal, progress lines of proc.run, nothing surviving kill -9, a
# change of roots), hermes mcp --listen (HTTP connections sharing the programs), the output bound
# under a steady writer, waits that end when output comes, the limit, the console, and hermes
# exec's refusal.
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from server_lib import (HERMES, Server, check, expect_result, pid_alive, rss_kib, run_tests,
                        sanitized, wait_gone)


def call(s, verb, params, timeout=60.0):
    return expect_result(s.call(verb, params, timeout=timeout))


def ok(r):
    check(r.get("succeeded") is True, r)
    return r


def mcp_server(args=()):
    s = Server(args=list(args), command="mcp")
    expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "proc_start.py", "version": "1"}}))
    s.notify("notifications/initialized")
    return s


def tool(s, name, arguments, meta=None, timeout=60.0):
    params = {"name": name, "arguments": arguments}
    if meta:
        params["_meta"] = meta
    r = expect_result(s.call("tools/call", params, timeout=timeout))
    return r["structuredContent"]


def test_dev_server_through_serve():
    with Server() as s:
        r = ok(call(s, "proc.start", {"executable": "python3",
                                      "arguments": ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1"],
                                      "waitFor": "Serving HTTP", "waitSeconds": 30}))
        check(r["matched"] is True and r["running"] is True and r["exitCode"] is None, r)
        check(re.match(r"^[a-z0-9-]{1,63}\.p\d+-[0-9a-f]{6}$", r["id"]), r)
        port = re.search(r"port (\d+)", r["stdout"]).group(1)
        ident = r["id"]
        # request a page with proc.run, then read the request's log line (stderr) as it comes
        s.write_file("x-test-page", "hello\n")
        fetch = ("import urllib.request as u; o = u.build_opener(u.ProxyHandler({})); "
                 "print(o.open('http://127.0.0.1:%s/x-test-page').read().decode())" % port)
        page = ok(call(s, "proc.run", {"executable": "python3", "arguments": ["-c", fetch]}))
        check(page["exitCode"] == 0, page)
        got = ok(call(s, "fs.readFile", {"path": page["stdoutPath"]}))["content"]
        check(got == "hello\n\n", got)
        seen = ""
        deadline = time.monotonic() + 30
        while "GET /x-test-page" not in seen and time.monotonic() < deadline:
            o = ok(call(s, "proc.output", {"id": ident, "waitSeconds": 5}))
            seen += o["stderr"]
        check(re.search(r'"GET /x-test-page HTTP/1\.[01]" 200', seen), seen)
        lst = ok(call(s, "proc.list", {}))["programs"]
        check([p["id"] for p in lst] == [ident] and lst[0]["running"] and
              lst[0]["commandLine"].startswith("python3 -u -m http.server 0"), lst)
        st = ok(call(s, "proc.stop", {"id": ident}))
        check(st["exitCode"] in (128 + signal.SIGTERM, 0, 1), st)
        check(not pid_alive(r["pid"]), "the server outlived proc.stop")
        o = call(s, "proc.output", {"id": ident})
        check(o["succeeded"] is False and o["errorCode"] == "NotFound" and ident in o["errorMessage"], o)


def test_repl_under_tty_through_mcp():
    with mcp_server() as s:
        r = tool(s, "proc_start", {"executable": "python3", "arguments": ["-i", "-q"], "tty": True,
                                   "waitFor": ">>> ", "waitSeconds": 30})
        check(r["succeeded"] and r["matched"], r)
        ident = r["id"]
        w = tool(s, "proc_write", {"id": ident, "text": "print(6*7)\n"})
        check(w["succeeded"] and w["bytesWritten"] == 11, w)
        seen = ""
        deadline = time.monotonic() + 30
        while "\n42\r\n" not in seen and time.monotonic() < deadline:
            seen += tool(s, "proc_output", {"id": ident, "waitSeconds": 5})["stdout"]
        check("\n42\r\n" in seen, seen)
        st = tool(s, "proc_stop", {"id": ident})
        check(st["succeeded"], st)


def test_cancelled_start_leaves_nothing_running():
    # nobody learns the id of a proc.start cancelled while it waits: its program is stopped
    with mcp_server() as s:
        ident = s.request("tools/call", {"name": "proc_start", "arguments": {
            "executable": "sh", "arguments": ["-c", "echo $$ > pid; exec sleep 300"],
            "waitFor": "never", "waitSeconds": 120}})
        s.wait_for_file("pid")
        time.sleep(0.1)
        pid = int(open(os.path.join(s.root, "pid")).read())
        check(pid_alive(pid), "the program is not running")
        s.notify("notifications/cancelled", {"requestId": ident, "reason": "test"})
        check(wait_gone(pid, 15), "the program of a cancelled proc.start still runs")
        s.expect_silence(0.3)
        check(tool(s, "proc_list", {})["programs"] == [], "listed")


def test_wait_for_answers_within_wait_seconds():
    # a pattern that backtracks without end on every line, and a program that writes faster than
    # any scan: proc.start answers within waitSeconds (plus a margin) all the same
    with Server() as s:
        margin = 4.0 if sanitized(s.proc.pid) else 2.0
        for args, pattern, wait in ((["yes", "a" * 40 + "b"], "^(a+)+$", 1),
                                    (["yes"], "ready", 2)):
            t0 = time.monotonic()
            r = ok(call(s, "proc.start", {"executable": args[0], "arguments": args[1:],
                                          "waitFor": pattern, "waitSeconds": wait}))
            took = time.monotonic() - t0
            check(r["matched"] is False and r["running"] is True, r)
            check(took < wait + margin, "%s against %s answered after %.1f s for waitSeconds %d"
                  % (pattern, args[0], took, wait))
            ok(call(s, "proc.stop", {"id": r["id"]}))


def test_wait_for_is_cancelled():
    # a cancel reaches a proc.start busy matching a pattern that backtracks without end
    with mcp_server() as s:
        ident = s.request("tools/call", {"name": "proc_start", "arguments": {
            "executable": "yes", "arguments": ["a" * 40 + "b"], "waitFor": "^(a+)+$",
            "waitSeconds": 120}})
        time.sleep(0.5)
        t0 = time.monotonic()
        s.notify("notifications/cancelled", {"requestId": ident, "reason": "test"})
        # a cancelled request gets no answer; its program is stopped once the scan sees the flag
        while tool(s, "proc_list", {})["programs"] and time.monotonic() - t0 < 30:
            time.sleep(0.05)
        took = time.monotonic() - t0
        check(took < (6.0 if sanitized(s.proc.pid) else 3.0) + 2.0,  # + the stop's grace
              "the cancel took %.1f s" % took)
        s.expect_silence(0.3)


def test_programs_survive_a_change_of_roots():
    # the programs are the server's, not the workspace's: when the client's roots change, the ids
    # still work, and the programs still end with the server
    with Server(command="mcp") as s:
        first, second = os.path.join(s.tmp, "first"), os.path.join(s.tmp, "second")
        os.mkdir(first)
        os.mkdir(second)
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18",
                                            "capabilities": {"roots": {"listChanged": True}},
                                            "clientInfo": {"name": "t", "version": "1"}}))
        s.notify("notifications/initialized")
        for ws in (first, second):
            ask = s.recv()
            check(ask.get("method") == "roots/list", ask)
            s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file://" + ws}]}})
            if ws == first:
                r = tool(s, "proc_start", {"executable": "sh", "arguments": ["-c", "echo one; exec sleep 300"],
                                           "waitFor": "one"})
                check(r["succeeded"], r)
                s.notify("notifications/roots/list_changed")
        w = tool(s, "fs_writeFile", {"path": "here.txt", "content": "x"})
        check(w["succeeded"] and os.path.exists(os.path.join(second, "here.txt")), w)
        lst = tool(s, "proc_list", {})["programs"]
        check([p["id"] for p in lst] == [r["id"]] and lst[0]["running"], lst)
        s.close_stdin()
        check(s.wait(15) == 0, "exit")
        check(wait_gone(r["pid"], 10), "the program outlived the server")


def test_connections_of_http_share_the_programs():
    # hermes mcp --listen (Streamable HTTP, the 2026-07-28 era: no sessions): a program started
    # by one connection is read, typed into and stopped by others, and ends with the server
    if os.environ.get("HERMES_HTTP") == "no":
        return
    root = os.path.realpath(tempfile.mkdtemp(prefix="hermes-proc-http."))
    err = open(os.path.join(root, ".stderr"), "w+b")
    p = subprocess.Popen([HERMES, "mcp", "--listen=127.0.0.1:0", "--root", root],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 10
        while True:
            err.seek(0)
            m = re.search(rb"listening on http://([0-9.]+):(\d+)(/\S*)", err.read())
            if m or p.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        check(m, "hermes mcp --listen did not start")
        host, port, path = m.group(1).decode(), int(m.group(2)), m.group(3).decode()
        n = [0]

        def http_tool(name, arguments):
            n[0] += 1
            meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}}
            body = {"jsonrpc": "2.0", "id": n[0], "method": "tools/call",
                    "params": {"name": name, "arguments": arguments, "_meta": meta}}
            c = http.client.HTTPConnection(host, port, timeout=60)  # a new connection each time
            headers = {
                "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
            if "id" in arguments:  # the program's handle, mirrored as its schema says
                headers["Mcp-Param-Handle"] = arguments["id"]
            c.request("POST", path, body=json.dumps(body).encode(), headers=headers)
            r = c.getresponse()
            raw = r.read().decode()
            c.close()
            check(r.status == 200, (r.status, raw))
            if r.getheader("Content-Type", "").startswith("text/event-stream"):
                raw = [l[5:] for l in raw.splitlines() if l.startswith("data:")][-1]
            return json.loads(raw)["result"]["structuredContent"]

        r = http_tool("proc_start", {"executable": "cat", "waitSeconds": 0})
        check(r["succeeded"] and r["running"], r)
        w = http_tool("proc_write", {"id": r["id"], "text": "over http\n"})
        check(w["succeeded"], w)
        o = http_tool("proc_output", {"id": r["id"], "waitSeconds": 20})
        check(o["stdout"] == "over http\n", o)
        check([x["id"] for x in http_tool("proc_list", {})["programs"]] == [r["id"]], "listed")
        second = http_tool("proc_start", {"executable": "sleep", "arguments": ["300"], "waitSeconds": 0})
        st = http_tool("proc_stop", {"id": r["id"]})
        check(st["succeeded"] and not pid_alive(r["pid"]), st)
        p.send_signal(signal.SIGTERM)
        check(p.wait(15) == 0, "exit status")
        check(wait_gone(second["pid"], 10), "a program outlived hermes mcp --listen")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        err.close()
        shutil.rmtree(root, ignore_errors=True)


def test_tools_list_and_annotations():
    with mcp_server() as s:
        tools = {t["name"]: t for t in expect_result(s.call("tools/list"))["tools"]}
        for name in ("proc_start", "proc_output", "proc_write", "proc_stop", "proc_list"):
            check(name in tools, sorted(tools))
        check(tools["proc_start"]["annotations"].get("destructiveHint") is True, tools["proc_start"])
        check(tools["proc_list"]["annotations"].get("readOnlyHint") is True, tools["proc_list"])
        check("waitFor" in tools["proc_start"]["inputSchema"]["properties"], tools["proc_start"])
    with mcp_server(["--read-only"]) as s:
        names = [t["name"] for t in expect_result(s.call("tools/list"))["tools"]]
        check("proc_start" not in names and "proc_write" not in names and "proc_stop" not in names
              and "proc_list" in names, names)


def test_progress_carries_the_latest_line():
    with mcp_server() as s:
        t0 = time.monotonic()
        ident = s.request("tools/call", {"name": "proc_run", "arguments": {
            "executable": "sh", "arguments": ["-c", "for i in 1 2 3 4 5 6; do echo step $i; sleep 0.3; done"]},
            "_meta": {"progressToken": "tok"}})
        messages = []
        while True:
            m = s.recv(30)
            if m.get("method") == "notifications/progress":
                messages.append(m["params"]["message"])
                continue
            check(m.get("id") == ident, m)
            break
        took = time.monotonic() - t0
        lines = [x for x in messages if x.startswith("step ")]
        check(len(set(lines)) >= 2 and lines == sorted(lines), messages)
        check(all(re.match(r"^step [1-6]$", x) or "no output yet" in x for x in messages), messages)
        # at most 10 a second (counted over the whole call, which the client's timing can only
        # lengthen)
        check(len(messages) <= took * 10 + 3, "%d progress messages in %.2f s" % (len(messages), took))


def test_kill_9_of_mcp_leaves_nothing():
    s = mcp_server()
    try:
        r = tool(s, "proc_start", {"executable": "sh", "arguments": ["-c",
                 "trap '' TERM HUP; sleep 300 & echo $!; setsid sleep 300 & echo $!; echo up; wait"],
                 "waitFor": "^up"})
        check(r["succeeded"], r)
        pids = [r["pid"]] + [int(x) for x in r["stdout"].split()[:2]]
        t = tool(s, "proc_start", {"executable": "python3", "arguments": ["-i", "-q"], "tty": True,
                                   "waitFor": ">>> ", "waitSeconds": 30})
        check(t["succeeded"], t)
        pids.append(t["pid"])
        check(all(pid_alive(p) for p in pids), pids)
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait()
        for p in pids:
            check(wait_gone(p, 15), "pid %d outlived kill -9 of hermes mcp" % p)
    finally:
        s.close()


# A program that kills (or stops) its supervisor: Hermes takes the run over (as subreaper, with a
# cgroup per run where the machine allows, and without one: HERMES_PROC_CGROUP=off), reports the
# program's own exit status, and leaves nothing of it running.
ESCAPE = ("setsid sleep 300 & echo $! > pids; sleep 300 & echo $! >> pids; echo $$ >> pids; "
          "echo up; kill -9 $PPID; ")


def test_supervisor_killed_at_once_still_reports_the_status():
    """A program that kills its supervisor as its first act: the supervisor must have reported
    the program's pid before the program runs, or its status is lost (exit 0 was reported for
    1 of 30 such runs before the program waited at a gate)."""
    with Server() as s:
        for i in range(30):
            r = ok(call(s, "proc.run", {"executable": "sh", "arguments": [
                "-c", "kill -9 $PPID; exit 3"]}))
            check(r["exitCode"] == 3, (i, r))


def escape_modes():
    return (None, dict(os.environ, HERMES_PROC_CGROUP="off"))


def read_pids(s):
    s.wait_for_file("pids")
    for _ in range(200):
        pids = [int(x) for x in open(os.path.join(s.root, "pids")).read().split()]
        if len(pids) == 3:
            return pids
        time.sleep(0.01)
    raise AssertionError("the program did not write its pids")


def test_killed_supervisor_under_proc_run():
    for env in escape_modes():
        with Server(env=env) as s:
            r = ok(call(s, "proc.run", {"executable": "sh", "arguments": ["-c", ESCAPE + "sleep 1; exit 3"]}))
            check(r["exitCode"] == 3, r)
            for p in read_pids(s):
                check(wait_gone(p, 5), "pid %d outlived proc.run (cgroup %s)" % (p, env is None))
            r = ok(call(s, "proc.run", {"executable": "sh", "arguments": [
                "-c", "sleep 300 & echo $! > pids; echo $! >> pids; echo $$ >> pids; "
                      "kill -STOP $PPID; sleep 0.3; exit 4"]}))
            check(r["exitCode"] == 4, r)
            for p in read_pids(s):
                check(wait_gone(p, 5), "pid %d outlived a stopped supervisor" % p)


def test_killed_supervisor_under_proc_start():
    for env in escape_modes():
        with Server(env=env) as s:
            # it ends by itself: its own status
            r = ok(call(s, "proc.start", {"executable": "sh", "arguments": ["-c", ESCAPE + "sleep 0.5; exit 3"],
                                          "waitFor": "up"}))
            o = ok(call(s, "proc.output", {"id": r["id"], "waitSeconds": 10}))
            while o["running"]:
                o = ok(call(s, "proc.output", {"id": r["id"], "waitSeconds": 10}))
            check(o["exitCode"] == 3, o)
            for p in read_pids(s):
                check(wait_gone(p, 5), "pid %d outlived its program" % p)
            os.unlink(os.path.join(s.root, "pids"))
            # proc.stop
            r = ok(call(s, "proc.start", {"executable": "sh", "arguments": ["-c", ESCAPE + "sleep 300; exit 3"],
                                          "waitFor": "up"}))
            pids = read_pids(s)
            time.sleep(0.2)
            st = ok(call(s, "proc.stop", {"id": r["id"]}))
            check(st["exitCode"] == 128 + signal.SIGTERM, st)
            for p in pids:
                check(wait_gone(p, 5), "pid %d outlived proc.stop (cgroup %s)" % (p, env is None))
            os.unlink(os.path.join(s.root, "pids"))
            # the end of Hermes
            ok(call(s, "proc.start", {"executable": "sh", "arguments": ["-c", ESCAPE + "sleep 300; exit 3"],
                                      "waitFor": "up"}))
            pids = read_pids(s)
            time.sleep(0.2)
            s.proc.stdin.close()
            check(s.proc.wait(15) == 0, "exit status")
            for p in pids:
                check(wait_gone(p, 5), "pid %d outlived hermes serve (cgroup %s)" % (p, env is None))


def test_killed_supervisor_then_kill_9_of_hermes():
    for env in escape_modes():
        s = Server(env=env)
        try:
            ok(call(s, "proc.start", {"executable": "sh", "arguments": ["-c", ESCAPE + "sleep 300; exit 3"],
                                      "waitFor": "up"}))
            pids = read_pids(s)
            time.sleep(0.5)  # the takeover, and the guard's first look
            check(all(pid_alive(p) for p in pids), pids)
            os.kill(s.proc.pid, signal.SIGKILL)
            s.proc.wait()
            for p in pids:
                check(wait_gone(p, 10), "pid %d outlived kill -9 of hermes (cgroup %s)" % (p, env is None))
        finally:
            s.close()


def test_steady_writer_stays_bounded():
    # a megabyte a second for ten seconds: Hermes keeps its last MiB and counts the rest
    script = ("import sys, time\n"
              "line = b'y' * 1023 + b'\\n'\n"
              "for s in range(10):\n"
              "    t = time.monotonic()\n"
              "    for i in range(1024): sys.stdout.buffer.write(line)\n"
              "    sys.stdout.flush()\n"
              "    time.sleep(max(0, 1 - (time.monotonic() - t)))\n"
              "print('finished', flush=True)\n")
    with Server() as s:
        r = ok(call(s, "proc.start", {"executable": "python3", "arguments": ["-c", script], "waitSeconds": 0}))
        ident = r["id"]
        peak = 0
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lst = ok(call(s, "proc.list", {}))["programs"]
            peak = max(peak, rss_kib(s.proc.pid))
            if not lst[0]["running"]:
                break
            time.sleep(0.5)
        check(not lst[0]["running"] and lst[0]["exitCode"] == 0, lst)
        total = 10 * 1024 * 1024 + len("finished\n")
        check(lst[0]["outputBytes"] == total, lst)
        o = ok(call(s, "proc.output", {"id": ident, "since": 0, "maxBytes": 1048576}))
        check(o["next"] == total and o["droppedBytes"] == total - 1048576, {k: o[k] for k in ("next", "droppedBytes")})
        check(len(o["stdout"]) == 1048576 and o["stdout"].endswith("finished\n"), len(o["stdout"]))
        check(peak < 64 * 1024 or sanitized(s.proc.pid), "hermes serve grew to %d KiB" % peak)


def test_wait_seconds_returns_on_output():
    with Server() as s:
        r = ok(call(s, "proc.start", {"executable": "sh", "arguments": ["-c", "sleep 1; echo now; exec sleep 60"],
                                      "waitSeconds": 0}))
        t0 = time.monotonic()
        o = ok(call(s, "proc.output", {"id": r["id"], "waitSeconds": 60}))
        took = time.monotonic() - t0
        check(o["stdout"] == "now\n" and took < 30, (o, took))
        ok(call(s, "proc.stop", {"id": r["id"]}))


def test_seventeenth_start_is_refused():
    with Server() as s:
        ids = [ok(call(s, "proc.start", {"executable": "sleep", "arguments": ["60"], "waitSeconds": 0}))["id"]
               for _ in range(16)]
        r = call(s, "proc.start", {"executable": "sleep", "arguments": ["60"], "waitSeconds": 0})
        check(r["succeeded"] is False and r["errorCode"] == "LimitReached" and "16" in r["errorMessage"]
              and "--max-processes" in r["errorMessage"], r)
        ok(call(s, "proc.stop", {"id": ids[0]}))
        ok(call(s, "proc.start", {"executable": "sleep", "arguments": ["60"], "waitSeconds": 0}))
        pids = [p["pid"] for p in ok(call(s, "proc.list", {}))["programs"]]
        s.close_stdin()
        check(s.wait(15) == 0, "exit")
        for p in pids:
            check(wait_gone(p, 10), "pid %d outlived the end of input" % p)
    with Server(args=["--max-processes=1"]) as s:
        ok(call(s, "proc.start", {"executable": "sleep", "arguments": ["60"], "waitSeconds": 0}))
        r = call(s, "proc.start", {"executable": "sleep", "arguments": ["60"], "waitSeconds": 0})
        check(r["errorCode"] == "LimitReached", r)


def test_console_keeps_programs_until_it_exits():
    # hermes -i fed by a pipe: the program started by one envelope is there for the next ones, and
    # ends when the console does
    envs = [{"verb": "proc.start", "arguments": {"executable": "sh", "arguments": ["-c", "echo hi; exec sleep 300"],
                                                 "waitFor": "hi"}},
            {"verb": "proc.list", "arguments": {}}]
    text = "".join(json.dumps(e) + "\n" for e in envs)
    with Server() as s:  # only for its fresh workspace
        p = subprocess.run([HERMES, "-i"], input=text.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, cwd=s.root, timeout=60)
    dec = json.JSONDecoder()
    out = p.stdout.decode()
    started, end = dec.raw_decode(out)
    listed, _ = dec.raw_decode(out[end:].lstrip())
    check(p.returncode == 0 and started["succeeded"] and started["matched"], (p.returncode, out))
    check([x["id"] for x in listed["programs"]] == [started["id"]], listed)
    check(wait_gone(started["pid"], 10), "the program outlived the console")


def test_exec_refuses_proc_start():
    env = {"verb": "proc.start", "arguments": {"executable": "sleep", "arguments": ["60"]}}
    p = subprocess.run([HERMES, "exec"], input=json.dumps(env).encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30)
    r = json.loads(p.stdout)
    check(p.returncode == 1 and r["errorCode"] == "NotAllowed" and "hermes exec" in r["errorMessage"], r)
    env = {"verb": "proc.list", "arguments": {}}
    p = subprocess.run([HERMES, "exec"], input=json.dumps(env).encode(), stdout=subprocess.PIPE, timeout=30)
    check(json.loads(p.stdout)["programs"] == [], p.stdout)


run_tests(globals())
