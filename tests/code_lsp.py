# tests/code_lsp.py: the language-server client of the code.* verbs against a scripted server
# (a small LSP server written here, run by --lsp-server), for what a real server does not do on
# demand: die in the middle of a request, never answer (cancellation), and a language with no
# server; plus nothing surviving kill -9 of Hermes. The real servers' answers are checked by
# tests/code_clangd.py.
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from lsp_direct import FAKE_SERVER_IO
from server_lib import HERMES, Server, check, expect_result, pid_alive, run_tests, wait_gone

# A language server on stdio: answers initialize, documentSymbol (one function on line 1, named
# as the document's first line "func NAME" says, default "f"; each one asked is logged to
# outlines.txt in its working directory),
# definition (line 1 of the same file); on hover at line 2 it exits at once (a crash mid-request),
# on hover at line 3 it never answers and writes the id of the $/cancelRequest it gets to
# cancelled.txt in its working directory (the workspace root). At its start it writes its TMPDIR
# to tmpdir.txt there, and leaves a file in that TMPDIR when it is Hermes's own for it.
FAKE = FAKE_SERVER_IO + r'''
import json, os, sys
sys.stderr.write("fake server up\n"); sys.stderr.flush()
rng = lambda l, c, e: {"start": {"line": l, "character": c}, "end": {"line": l, "character": e}}
texts = {}
while True:
    m = read()
    meth, mid = m.get("method"), m.get("id")
    if meth == "initialize":
        tmp = os.environ.get("TMPDIR", "")
        open("tmpdir.txt", "w").write(tmp)
        if os.path.basename(tmp).startswith("hermes-tmp-"):
            open(os.path.join(tmp, "left-by-the-server"), "w").write("x")
        # a request of its own first: Hermes must answer it and go on
        send({"jsonrpc": "2.0", "id": "cfg", "method": "workspace/configuration",
              "params": {"items": [{"section": "x"}, {"section": "y"}]}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"capabilities": {},
              "serverInfo": {"name": "fake", "version": "0.1"}}})
    elif meth == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif meth == "exit":
        sys.exit(0)
    elif meth == "$/cancelRequest":
        open("cancelled.txt", "w").write(str(m["params"]["id"]))
        send({"jsonrpc": "2.0", "id": m["params"]["id"],
              "error": {"code": -32800, "message": "cancelled"}})
    elif mid == "cfg":
        open("configuration.txt", "w").write(json.dumps(m.get("result")))
    elif meth in ("textDocument/didOpen", "textDocument/didChange"):
        p = m["params"]
        texts[p["textDocument"]["uri"]] = p["textDocument"]["text"] if "text" in p[
            "textDocument"] else p["contentChanges"][-1]["text"]
    elif meth == "textDocument/documentSymbol":
        first = texts.get(m["params"]["textDocument"]["uri"], "").split("\n")[0].split()
        name = first[1].split("(")[0] if len(first) > 1 and first[0] == "func" else "f"
        open("outlines.txt", "a").write(name + "\n")
        send({"jsonrpc": "2.0", "id": mid, "result": [{"name": name, "kind": 12,
              "range": {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 1}},
              "selectionRange": rng(0, 5, 6), "children": []}]})
    elif meth == "textDocument/definition":
        uri = m["params"]["textDocument"]["uri"]
        send({"jsonrpc": "2.0", "id": mid, "result": [{"uri": uri, "range": rng(0, 5, 6)}]})
    elif meth == "textDocument/hover":
        line = m["params"]["position"]["line"]
        if line == 1:
            os._exit(3)
        if line == 2:
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": {"contents": {"kind": "plaintext",
              "value": "fake hover"}}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": None})
'''


def server(extra=(), env=None):
    s = Server(args=["--lsp-server=go=%s %s" % (sys.executable, os.path.join(
        tempfile.gettempdir(), "hermes-fake-lsp-%d.py" % os.getpid()))] + list(extra), env=env)
    s.write_file("main.go", "func f() {\n\tcrash()\n\tslow()\n}\n")
    return s


def ok(r):
    check(r.get("succeeded") is True, r)
    return r


def failed(r, code):
    check(r.get("succeeded") is False and r.get("errorCode") == code, r)
    return r


def call(s, verb, params, timeout=30.0):
    return expect_result(s.call(verb, params, timeout=timeout))


def server_pid(s):
    for e in ok(call(s, "code.servers", {}))["servers"]:
        if "go" in e["languages"] and e["state"] == "running":
            return e["pid"]
    return None


def test_definition_hover_and_the_servers_own_requests():
    with server() as s:
        r = ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        check(r["definitions"] == [{"path": "main.go", "line": 1, "column": 6, "endLine": 1,
                                     "endColumn": 7}], r)
        r = ok(call(s, "code.hover", {"path": "main.go", "line": 1, "column": 6}))
        check(r["text"] == "fake hover", r)
        check(json.load(open(os.path.join(s.root, "configuration.txt"))) == [None, None],
              "workspace/configuration answered with one null per item")
        e = [e for e in ok(call(s, "code.servers", {}))["servers"] if "go" in e["languages"]][0]
        check(e["state"] == "running" and e["serverName"] == "fake" and e["version"] == "0.1", e)
        check("fake server up" in (e["stderrTail"] or ""), e)


def test_a_crash_mid_request_is_unavailable_and_the_next_call_works():
    with server() as s:
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        pid = server_pid(s)
        r = failed(call(s, "code.hover", {"path": "main.go", "line": 2, "column": 2}), "Unavailable")
        check("ended" in r["errorMessage"] and "status 3" in r["errorMessage"], r)
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        e = [e for e in ok(call(s, "code.servers", {}))["servers"] if "go" in e["languages"]][0]
        check(e["restarts"] == 1 and e["pid"] != pid and "status 3" in e["lastError"], e)


def test_kill_of_the_server_then_the_next_call_works():
    with server() as s:
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        pid = server_pid(s)
        os.kill(pid, signal.SIGKILL)
        wait_gone(pid, 5)
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        e = [e for e in ok(call(s, "code.servers", {}))["servers"] if "go" in e["languages"]][0]
        check(e["restarts"] == 1 and "signal 9" in e["lastError"], e)


def test_cancellation_reaches_the_server():
    with server() as s:
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        id = s.request("code.hover", {"path": "main.go", "line": 3, "column": 2})
        time.sleep(0.5)
        s.notify("$/cancelRequest", {"id": id})
        r = s.reply_to(id, timeout=10)
        check("error" in r and r["error"]["code"] == -32800, r)
        deadline = time.monotonic() + 5
        path = os.path.join(s.root, "cancelled.txt")
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(os.path.exists(path), "the server got $/cancelRequest")
        ok(call(s, "code.hover", {"path": "main.go", "line": 1, "column": 6}))


def test_symbol_edits_replace_insert_before_and_after():
    with server() as s:
        path = os.path.join(s.root, "main.go")
        r = ok(call(s, "code.insertBeforeSymbol", {"path": "main.go", "namePath": "f",
                                                   "body": "// f does things"}))
        check(open(path).read() == "// f does things\nfunc f() {\n\tcrash()\n\tslow()\n}\n", r)
        check(r["line"] == 1 and "+// f does things" in r["diff"] and r["version"], r)
        # The scripted outline says f is on lines 1-4: the file is as the server saw it.
        s.write_file("main.go", "func f() {\n\tcrash()\n\tslow()\n}\n")
        r = ok(call(s, "code.insertAfterSymbol", {"path": "main.go", "namePath": "f",
                                                  "body": "func g() {}\n"}))
        check(open(path).read() == "func f() {\n\tcrash()\n\tslow()\n}\nfunc g() {}\n", r)
        check(r["line"] == 5, r)
        r = ok(call(s, "code.replaceSymbol", {"path": "main.go", "namePath": "f",
                                              "body": "func f() { é😀 }"}))
        check(open(path, encoding="utf-8").read() == "func f() { é😀 }\nfunc g() {}\n", r)
        r = failed(call(s, "code.replaceSymbol", {"path": "main.go", "namePath": "nope",
                                                  "body": "x"}), "NotFound")
        check("nope" in r["errorMessage"], r)
        r = failed(call(s, "code.replaceSymbol", {"path": "main.go", "namePath": "f", "body": "x",
                                                  "expectedVersion": "1-2-3"}), "Conflict")
        check(open(path, encoding="utf-8").read() == "func f() { é😀 }\nfunc g() {}\n", r)


def test_outlines_are_kept_until_the_text_changes():
    with server() as s:
        log = os.path.join(s.root, "outlines.txt")

        def outline():
            r = ok(call(s, "code.symbols", {"path": "main.go"}))
            return [x["namePath"] for x in r["symbols"]]

        def asked():
            return len(open(log).read().split()) if os.path.exists(log) else 0
        for _ in range(3):
            check(outline() == ["f"], "the outline of main.go")
        check(asked() == 1, "the server was asked the outline of one text %d times" % asked())
        # Changed behind Hermes' back: the next call reads the new text, syncs it, asks again.
        with open(os.path.join(s.root, "main.go"), "w") as f:
            f.write("func h() {\n}\n")
        check(outline() == ["h"] and asked() == 2, (outline(), asked()))
        # Written through Hermes.
        ok(call(s, "fs.writeFile", {"path": "main.go", "content": "func k() {\n}\n"}))
        check(outline() == ["k"] and outline() == ["k"] and asked() == 3, asked())
        # Back to an earlier text: asked again (a kept outline is of the text last synced only).
        s.write_file("main.go", "func h() {\n}\n")
        check(outline() == ["h"] and asked() == 4, asked())


def test_64_concurrent_inserts_after_one_symbol():
    with server() as s:
        path = os.path.join(s.root, "main.go")
        ids = {s.request("code.insertAfterSymbol", {"path": "main.go", "namePath": "f",
                                                    "body": "// insert %d" % i}): i
               for i in range(64)}
        done = []
        for id, i in ids.items():
            r = expect_result(s.reply_to(id, timeout=60))
            if r["succeeded"]:
                done.append(i)
            else:
                check(r["errorCode"] == "Conflict", r)
        text = open(path).read()
        check(text.startswith("func f() {\n\tcrash()\n\tslow()\n}\n"), text)
        lines = text.split("\n")[4:-1]
        check(sorted(lines) == sorted("// insert %d" % i for i in done), (lines, done))
        # Symbol edits of one file in one Hermes take turns: none has to give up.
        check(len(done) == 64, "all of the 64 succeed: %d" % len(done))


def test_every_interface_mcp_and_exec():
    fake = "--lsp-server=go=%s %s" % (sys.executable, os.path.join(
        tempfile.gettempdir(), "hermes-fake-lsp-%d.py" % os.getpid()))
    s = Server(args=[fake], command="mcp")
    try:
        s.write_file("main.go", "func f() {\n\tcrash()\n\tslow()\n}\n")
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "code_lsp.py", "version": "1"}}))
        s.notify("notifications/initialized")
        tools = {t["name"] for t in expect_result(s.call("tools/list", {}))["tools"]}
        check({"code_definition", "code_references", "code_rename", "code_symbols",
               "code_servers", "code_replaceSymbol"} <= tools, tools)
        r = expect_result(s.call("tools/call", {"name": "code_definition", "arguments": {
            "path": "main.go", "namePath": "f"}}, timeout=30))["structuredContent"]
        check(r["definitions"][0]["line"] == 1 and r["definitions"][0]["column"] == 6, r)
        root = s.root
    finally:
        s.close()
    with tempfile.TemporaryDirectory() as ws:
        with open(os.path.join(ws, "main.go"), "w") as f:
            f.write("func f() {}\n")
        p = subprocess.run([HERMES, "exec", fake, "--root", ws, "-"], input=json.dumps(
            {"verb": "code.symbols", "arguments": {"path": "main.go"}}).encode(),
            stdout=subprocess.PIPE, timeout=60)
        r = json.loads(p.stdout)
        check(p.returncode == 0 and r["symbols"][0]["namePath"] == "f", p.stdout)
    check(root, "served")


def test_a_change_of_roots_moves_the_server_to_the_new_root():
    fake = "--lsp-server=go=%s %s" % (sys.executable, os.path.join(
        tempfile.gettempdir(), "hermes-fake-lsp-%d.py" % os.getpid()))
    with Server(args=[fake], command="mcp") as s:
        first, second = os.path.join(s.tmp, "first"), os.path.join(s.tmp, "second")
        for ws in (first, second):
            os.mkdir(ws)
            with open(os.path.join(ws, "main.go"), "w") as f:
                f.write("func f() {}\n")
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18",
                                            "capabilities": {"roots": {"listChanged": True}},
                                            "clientInfo": {"name": "t", "version": "1"}}))
        s.notify("notifications/initialized")
        pids = []
        for ws in (first, second):
            ask = s.recv()
            check(ask.get("method") == "roots/list", ask)
            s.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [{"uri": "file://" + ws}]}})
            r = expect_result(s.call("tools/call", {"name": "code_definition", "arguments": {
                "path": "main.go", "namePath": "f"}}, timeout=30))["structuredContent"]
            check(r["succeeded"] and r["definitions"][0]["path"] == "main.go", r)
            servers = expect_result(s.call("tools/call", {"name": "code_servers", "arguments": {}},
                                           timeout=30))["structuredContent"]["servers"]
            e = [e for e in servers if "go" in e["languages"]][0]
            check(e["state"] == "running" and e["root"] == os.path.realpath(ws), e)
            pids.append(e["pid"])
            if ws == first:
                s.notify("notifications/roots/list_changed")
        check(pids[0] != pids[1] and wait_gone(pids[0], 10), "the first root's server ended")


def test_no_server_for_a_language_is_a_clear_error():
    with Server(args=["--lsp-server=python=hermes-no-such-language-server --stdio"]) as s:
        s.write_file("a.py", "x = 1\n")
        r = failed(call(s, "code.symbols", {"path": "a.py"}), "Unavailable")
        check("python" in r["errorMessage"] and "hermes-no-such-language-server" in r["errorMessage"]
              and "not on PATH" in r["errorMessage"], r)
        s.write_file("a.txt", "x\n")
        r = failed(call(s, "code.symbols", {"path": "a.txt"}), "InvalidArgument")
        check("no language" in r["errorMessage"], r)
        r = failed(call(s, "code.definition", {"namePath": "x"}), "InvalidArgument")


def test_each_server_has_a_tmpdir_of_its_own_removed_when_it_ends():
    """What a server leaves in its TMPDIR (clangd's preambles, when it is killed) goes with it:
    when it crashes and the next call starts another, when Hermes ends, and when Hermes is killed
    (then at the next Hermes's first server)."""
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="hermes-lsp-tmpdir-test."))
    env = dict(os.environ, TMPDIR=tmp)

    def its_tmpdir(s):
        d = open(os.path.join(s.root, "tmpdir.txt")).read()
        check(os.path.dirname(d) == tmp and os.path.basename(d).startswith(
            "hermes-tmp-%d-" % s.proc.pid), "the server's TMPDIR is %r" % d)
        check(os.stat(d).st_mode & 0o777 == 0o700, "%s is not private" % d)
        check(os.path.exists(os.path.join(d, "left-by-the-server")), "nothing in %s" % d)
        return d

    def definition(s):
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))

    try:
        with server(env=env) as s:
            definition(s)
            first = its_tmpdir(s)
            pid = server_pid(s)
            os.kill(pid, signal.SIGKILL)
            wait_gone(pid, 5)
            definition(s)
            second = its_tmpdir(s)
            check(second != first and not os.path.exists(first),
                  "the killed server's %s is still there" % first)
            s.close_stdin()
            check(s.proc.wait(30) == 0, "hermes exits")
            check(os.listdir(tmp) == [], "left in TMPDIR after Hermes ended: %s" % os.listdir(tmp))
        with server(env=env) as s:
            definition(s)
            left = its_tmpdir(s)
            pid = server_pid(s)
            s.proc.send_signal(signal.SIGKILL)
            s.proc.wait(5)
            wait_gone(pid, 10)
        check(os.path.exists(left), "a killed Hermes cannot remove %s" % left)
        with server(env=env) as s:
            definition(s)
            check(not os.path.exists(left), "the next Hermes did not remove %s" % left)
            its_tmpdir(s)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_nothing_survives_kill_9_of_hermes():
    s = server()
    try:
        ok(call(s, "code.definition", {"path": "main.go", "namePath": "f"}))
        pid = server_pid(s)
        check(pid and pid_alive(pid), "the server runs")
        s.proc.send_signal(signal.SIGKILL)
        s.proc.wait(5)
        check(wait_gone(pid, 10) is not False and not pid_alive(pid), "the server died with Hermes")
    finally:
        s.close()


if __name__ == "__main__":
    with open(os.path.join(tempfile.gettempdir(), "hermes-fake-lsp-%d.py" % os.getpid()), "w") as f:
        f.write(FAKE)
    try:
        run_tests(globals())
    finally:
        os.unlink(f.name)
