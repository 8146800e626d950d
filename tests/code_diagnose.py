# tests/code_diagnose.py: the editing verbs' diagnose argument against a scripted language server
# (written here, run by --lsp-server for Go), whose diagnostics are known in advance: one per word
# of a file that starts with "BAD", message "found WORD", code "bad". It also dies on a text
# holding CRASH and never publishes for one holding SILENT: what a real server does not do on
# demand. Checks what each verb reports (introduced, fixed, total; a multiset of message and
# code), why diagnostics are missing (no language, no server installed, the server ended or is
# silent) while the write succeeds, dry runs, 64 concurrent diagnose edits of one file and of 64
# files through hermes serve, and hermes exec and hermes mcp once each. tests/code_diagnose_clangd.py
# does the same with the real clangd.
import json
import os
import subprocess
import sys
import tempfile
import time

from lsp_direct import FAKE_SERVER_IO
from server_lib import HERMES, Server, check, expect_result, run_tests

FAKE = FAKE_SERVER_IO + r'''
import json, os, re, sys
from urllib.parse import unquote
def publish(uri, version, text):
    if "CRASH" in text:
        os._exit(3)
    if "SILENT" in text:
        return
    diags = []
    for n, line in enumerate(text.split("\n")):
        for m in re.finditer(r"BAD\w*", line):
            diags.append({"range": {"start": {"line": n, "character": m.start()},
                                    "end": {"line": n, "character": m.end()}},
                          "severity": 1, "message": "found " + m.group(0), "code": "bad",
                          "source": "fake"})
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
          "params": {"uri": uri, "version": version, "diagnostics": diags}})
while True:
    m = read()
    meth, mid, p = m.get("method"), m.get("id"), m.get("params") or {}
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"capabilities": {}}})
    elif meth == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif meth == "exit":
        sys.exit(0)
    elif meth == "textDocument/didOpen":
        d = p["textDocument"]
        publish(d["uri"], d["version"], d["text"])
    elif meth == "textDocument/didChange":
        d = p["textDocument"]
        publish(d["uri"], d["version"], p["contentChanges"][-1]["text"])
    elif meth == "textDocument/documentSymbol":
        text = open(unquote(p["textDocument"]["uri"][len("file://"):])).read()
        last = text.rstrip("\n").count("\n")
        send({"jsonrpc": "2.0", "id": mid, "result": [{"name": "f", "kind": 12,
              "range": {"start": {"line": 0, "character": 0}, "end": {"line": last, "character": 1}},
              "selectionRange": {"start": {"line": 0, "character": 5},
                                 "end": {"line": 0, "character": 6}}, "children": []}]})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": None})
'''
FAKE_PATH = os.path.join(tempfile.gettempdir(), "hermes-diagnose-fake-%d.py" % os.getpid())
FAKE_ARG = "--lsp-server=go=%s %s" % (sys.executable, FAKE_PATH)


def server(extra=(), command="serve"):
    return Server(args=[FAKE_ARG] + list(extra), command=command)


def call(s, verb, params, timeout=60.0):
    r = expect_result(s.call(verb, params, timeout=timeout))
    check(r.get("succeeded") is True, r)
    return r


def messages(items):
    return sorted(d["message"] for d in items)


def only_entry(r, path):
    check(len(r["diagnostics"]) == 1 and r["diagnostics"][0]["path"] == path, r)
    return r["diagnostics"][0]


def test_introduced_and_fixed_as_a_multiset():
    with server() as s:
        s.write_file("a.go", "func f() {\n\tBAD1\n}\n")
        r = call(s, "fs.editFile", {"path": "a.go", "diagnose": True, "edits": [
            {"oldText": "\tBAD1\n", "newText": "\tBAD1 BAD1\n\tBAD2\n"}]})
        e = only_entry(r, "a.go")
        # One BAD1 was there before: of the two now, one is new; BAD2 is new.
        check(messages(e["introduced"]) == ["found BAD1", "found BAD2"], e)
        check(e["fixed"] == [] and e["total"] == 3 and e["unavailable"] is None, e)
        d = [x for x in e["introduced"] if x["message"] == "found BAD2"][0]
        check((d["path"], d["line"], d["column"], d["endColumn"], d["severity"], d["code"],
               d["source"]) == ("a.go", 3, 2, 6, "error", "bad", "fake"), d)
        # Fixing: the positions of a fixed one are those of the text before the edit.
        r = call(s, "fs.writeRange", {"path": "a.go", "startLine": 3, "endLine": 3,
                                      "content": "\tok", "diagnose": True})
        e = only_entry(r, "a.go")
        check(e["introduced"] == [] and messages(e["fixed"]) == ["found BAD2"], e)
        check(e["fixed"][0]["line"] == 3 and e["total"] == 2, e)
        # A whole new file: everything it has is introduced.
        r = call(s, "fs.writeFile", {"path": "new.go", "content": "BADX\n", "diagnose": True})
        e = only_entry(r, "new.go")
        check(messages(e["introduced"]) == ["found BADX"] and e["total"] == 1, e)
        # An edit that changes nothing introduces nothing and fixes nothing.
        r = call(s, "fs.writeFile", {"path": "new.go", "content": "BADX\n", "diagnose": True})
        e = only_entry(r, "new.go")
        check(e["introduced"] == [] and e["fixed"] == [] and e["total"] == 1, e)
        # Without diagnose, or with dryRun: none, and no waiting.
        r = call(s, "fs.writeFile", {"path": "new.go", "content": "BADY\n"})
        check(r["diagnostics"] == [], r)
        r = call(s, "fs.editFile", {"path": "new.go", "dryRun": True, "diagnose": True,
                                    "edits": [{"oldText": "BADY", "newText": "BADZ"}]})
        check(r["diagnostics"] == [] and "BADZ" in r["diff"], r)


def test_symbol_edits_and_patches_report_each_file():
    with server() as s:
        s.write_file("a.go", "func f() {\n}\n")
        s.write_file("b.go", "BADB\n")
        r = call(s, "code.replaceSymbol", {"path": "a.go", "namePath": "f", "diagnose": True,
                                           "body": "func f() {\n\tBADR\n}"})
        e = only_entry(r, "a.go")
        check(messages(e["introduced"]) == ["found BADR"], e)
        r = call(s, "code.insertAfterSymbol", {"path": "a.go", "namePath": "f", "diagnose": True,
                                               "body": "// BADI"})
        check(messages(only_entry(r, "a.go")["introduced"]) == ["found BADI"], r)
        r = call(s, "code.insertBeforeSymbol", {"path": "a.go", "namePath": "f",
                                                "diagnose": True, "body": "// fine"})
        e = only_entry(r, "a.go")
        check(e["introduced"] == [] and e["total"] == 2, e)
        patch = ("*** Begin Patch\n*** Update File: a.go\n@@\n-\tBADR\n+\tfine\n"
                 "*** Update File: b.go\n@@\n-BADB\n+BADC\n*** Add File: c.txt\n+text\n"
                 "*** End Patch\n")
        r = call(s, "fs.applyPatch", {"patch": patch, "diagnose": True})
        got = {e["path"]: e for e in r["diagnostics"]}
        check(sorted(got) == ["a.go", "b.go", "c.txt"], r)
        check(got["a.go"]["introduced"] == [] and messages(got["a.go"]["fixed"]) == ["found BADR"],
              got)
        check(messages(got["b.go"]["introduced"]) == ["found BADC"] and
              messages(got["b.go"]["fixed"]) == ["found BADB"], got)
        check("no language" in got["c.txt"]["unavailable"] and got["c.txt"]["total"] is None, got)


def test_missing_diagnostics_never_fail_the_write():
    with server(["--lsp-server=python=hermes-no-such-language-server"]) as s:
        r = call(s, "fs.writeFile", {"path": "notes.txt", "content": "BAD\n", "diagnose": True})
        e = only_entry(r, "notes.txt")
        check("Hermes knows no language for 'notes.txt'" in e["unavailable"], e)
        check(e["introduced"] == [] and e["fixed"] == [] and e["total"] is None, e)
        r = call(s, "fs.writeFile", {"path": "x.py", "content": "x = 1\n", "diagnose": True})
        e = only_entry(r, "x.py")
        check("python" in e["unavailable"] and "hermes-no-such-language-server" in
              e["unavailable"], e)
        check(open(os.path.join(s.root, "x.py")).read() == "x = 1\n", "the write was made")
        # The server dies on the text written: the write stands, and says so.
        s.write_file("a.go", "fine\n")
        r = call(s, "fs.writeFile", {"path": "a.go", "content": "CRASH\n", "diagnose": True})
        e = only_entry(r, "a.go")
        check(e["unavailable"] and "is not running: it exited with status 3" in e["unavailable"], e)
        check(open(os.path.join(s.root, "a.go")).read() == "CRASH\n", "the write was made")
        # The next one starts it again (once the file no longer kills it).
        call(s, "fs.writeFile", {"path": "a.go", "content": "fine\n"})
        r = call(s, "fs.writeFile", {"path": "a.go", "content": "BADAGAIN\n", "diagnose": True})
        check(messages(only_entry(r, "a.go")["introduced"]) == ["found BADAGAIN"], r)
        # A server that never publishes: the write returns after the wait, with the reason.
        r = call(s, "fs.writeFile", {"path": "a.go", "content": "SILENT\n", "diagnose": True},
                 timeout=90)
        e = only_entry(r, "a.go")
        check("published no diagnostics of 'a.go' after the edit within 20 seconds" in
              e["unavailable"], e)
        # A policy without code.diagnostics keeps diagnose from starting a server.
    with server(["--deny=code.*"]) as s:
        r = call(s, "fs.writeFile", {"path": "a.go", "content": "BAD\n", "diagnose": True})
        check("code.diagnostics is not among the verbs allowed" in
              only_entry(r, "a.go")["unavailable"], r)


def test_a_cancelled_wait_ends_at_once():
    """$/cancelRequest while a diagnose edit waits for a silent server: answered within seconds,
    not after the 20 s wait; the write, made before the wait, stands."""
    with server() as s:
        s.write_file("a.go", "fine\n")
        id = s.request("fs.writeFile", {"path": "a.go", "content": "SILENT\n", "diagnose": True})
        path = os.path.join(s.root, "a.go")
        deadline = time.monotonic() + 10
        while open(path).read() != "SILENT\n" and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)
        t0 = time.monotonic()
        s.notify("$/cancelRequest", {"id": id})
        r = s.reply_to(id, timeout=10)
        check(time.monotonic() - t0 < 5, "the cancelled wait went on")
        check(("error" in r and r["error"]["code"] == -32800) or
              "cancelled" in r["result"]["diagnostics"][0]["unavailable"], r)
        check(open(path).read() == "SILENT\n", "the write was made")


def test_64_concurrent_diagnose_edits():
    """32 whole-file writes of one file and 32 writes of 32 files at once: each result names
    exactly the diagnostic its own text brought, so no edit took another's text for its own."""
    with server() as s:
        s.write_file("same.go", "start\n")
        ids = {}
        for i in range(32):
            # two spellings of one file take turns all the same
            same = "same.go" if i % 2 else "./same.go"
            ids[s.request("fs.writeFile", {"path": same, "content": "BAD%d\n" % i,
                                           "diagnose": True})] = (same, i)
            ids[s.request("fs.writeFile", {"path": "f%d.go" % i, "content": "BAD%d\n" % i,
                                           "diagnose": True})] = ("f%d.go" % i, i)
        fixed_same = []
        for id, (path, i) in ids.items():
            r = expect_result(s.reply_to(id, timeout=120))
            check(r["succeeded"] is True, r)
            e = only_entry(r, path)
            check(e["unavailable"] is None, e)
            check(messages(e["introduced"]) == ["found BAD%d" % i] and e["total"] == 1, e)
            if path.endswith("same.go"):
                check(len(e["fixed"]) <= 1, e)
                fixed_same += messages(e["fixed"])
        # Each edit of same.go replaced the one before it: 31 of the 32 texts were fixed once.
        check(len(fixed_same) == 31 and len(set(fixed_same)) == 31, fixed_same)


def test_exec_and_mcp():
    with tempfile.TemporaryDirectory() as ws:
        with open(os.path.join(ws, "a.go"), "w") as f:
            f.write("BADOLD\n")
        p = subprocess.run([HERMES, "exec", FAKE_ARG, "--root", ws, "-"], input=json.dumps(
            {"verb": "fs.editFile", "arguments": {"path": "a.go", "diagnose": True, "edits": [
                {"oldText": "BADOLD", "newText": "BADNEW"}]}}).encode(),
            stdout=subprocess.PIPE, timeout=60)
        r = json.loads(p.stdout)
        check(p.returncode == 0 and r["succeeded"], p.stdout)
        e = only_entry(r, "a.go")
        check(messages(e["introduced"]) == ["found BADNEW"] and
              messages(e["fixed"]) == ["found BADOLD"], e)
    with server(command="mcp") as s:
        s.write_file("a.go", "fine\n")
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "code_diagnose.py",
                                                           "version": "1"}}))
        s.notify("notifications/initialized")
        r = expect_result(s.call("tools/call", {"name": "fs_writeFile", "arguments": {
            "path": "a.go", "content": "BADMCP\n", "diagnose": True}}, timeout=60))
        sc = r["structuredContent"]
        check(r.get("isError") is not True and sc["succeeded"], r)
        check(messages(only_entry(sc, "a.go")["introduced"]) == ["found BADMCP"], sc)


if __name__ == "__main__":
    with open(FAKE_PATH, "w") as f:
        f.write(FAKE)
    try:
        run_tests(globals(), per_test_timeout=180)
    finally:
        os.unlink(FAKE_PATH)
