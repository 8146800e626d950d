# tests/code_sync.py: the editing verbs tell a running language server what they wrote, so that
# the next code.* answer is computed from the edited text even for a file that answer does not
# read itself; and an edit never starts a server. With the real clangd on a three-file C project;
# skipped (77), saying so, where clangd is not installed.
import os
import shutil
import sys
import time

from lsp_direct import C_FILES, c_project
from server_lib import Server, check, expect_result, run_tests

CLANGD = shutil.which("clangd")

FILES = C_FILES


def workspace():
    return c_project("hermes-code-sync.", ())


def call(s, verb, params, timeout=120.0):
    r = expect_result(s.call(verb, params, timeout=timeout))
    check(r.get("succeeded") is True, r)
    return r


def clangd_state(s):
    r = call(s, "code.servers", {})
    return [x["state"] for x in r["servers"] if x["name"] == "clangd"][0]


def symbol_names(s, query):
    r = call(s, "code.symbols", {"query": query, "language": "c"})
    return sorted(x["name"] for x in r["symbols"])


def wait_for_symbol(s, query, present):
    """clangd indexes a synced document a moment after it gets it: a few tries, 20 s at most.
    Without the edit's didOpen/didChange of b.c (which no code.* call here opens), the server
    never learns of the new name, so this cannot pass by itself."""
    deadline = time.monotonic() + 20
    while True:
        names = symbol_names(s, query)
        if (query in names) == present or time.monotonic() > deadline:
            return names
        time.sleep(0.3)


def test_an_edit_does_not_start_a_server():
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            call(s, "fs.writeFile", {"path": "a.c", "content": FILES["a.c"] + "\n"})
            call(s, "fs.editFile", {"path": "b.c", "edits": [{"oldText": "return 1",
                                                             "newText": "return 2"}]})
            check(clangd_state(s) == "stopped", "an edit started clangd")
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_edits_reach_the_running_server():
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            # The server runs, with a.c open; b.c is only in its index.
            call(s, "code.definition", {"path": "a.c", "line": 5, "column": 9})
            check(clangd_state(s) == "running", "clangd did not start")
            check("fresh_edit_name" not in symbol_names(s, "fresh_edit_name"), "already there?")
            call(s, "fs.editFile", {"path": "b.c", "edits": [{
                "oldText": "int helper(void)",
                "newText": "int fresh_edit_name(void)\n{\n\treturn 3;\n}\n\nint helper(void)"}]})
            names = wait_for_symbol(s, "fresh_edit_name", True)
            check("fresh_edit_name" in names, names)
            # fs.writeFile, fs.writeRange and fs.applyPatch too.
            call(s, "fs.writeFile", {"path": "b.c", "content": FILES["b.c"] +
                                     "int written_name(void) { return 4; }\n"})
            names = wait_for_symbol(s, "written_name", True)
            check("written_name" in names, names)
            check("fresh_edit_name" not in wait_for_symbol(s, "fresh_edit_name", False),
                  "the server still has the text before fs.writeFile")
            call(s, "fs.writeRange", {"path": "b.c", "startLine": 7,
                                      "content": "int ranged_name(void) { return 5; }"})
            check("ranged_name" in wait_for_symbol(s, "ranged_name", True), "writeRange")
            patch = ("--- a/b.c\n+++ b/b.c\n@@ -1,2 +1,3 @@\n #include \"b.h\"\n"
                     "+int patched_name(void) { return 6; }\n \n")
            call(s, "fs.applyPatch", {"patch": patch})
            check("patched_name" in wait_for_symbol(s, "patched_name", True), "applyPatch")
            # A dry run tells the server nothing.
            call(s, "fs.editFile", {"path": "b.c", "dryRun": True, "edits": [{
                "oldText": "patched_name", "newText": "dry_name"}]})
            time.sleep(1)
            check("dry_name" not in symbol_names(s, "dry_name"), "a dry run reached the server")
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_diagnostics_of_every_open_file():
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            r = expect_result(s.call("code.diagnostics", {}, timeout=30))
            check(r["succeeded"] is False and r["errorCode"] == "InvalidArgument" and
                  "language" in r["errorMessage"], r)
            # Nothing open yet: none, settled.
            r = call(s, "code.diagnostics", {"language": "c"})
            check(r["diagnostics"] == [] and r["settled"] is True, r)
            call(s, "code.diagnostics", {"path": "a.c"})
            call(s, "code.definition", {"path": "b.c", "line": 3, "column": 5})
            # Broken behind the server's back: the call reads every open file's current text.
            with open(os.path.join(ws, "b.c"), "a") as f:
                f.write("int broken(void) { return undeclared_thing; }\n")
            r = call(s, "code.diagnostics", {"language": "c"})
            check(r["settled"] is True, r)
            got = [(d["path"], d["line"], d["severity"]) for d in r["diagnostics"]]
            check(got == [("b.c", 7, "error")], r)
            check("undeclared_thing" in r["diagnostics"][0]["message"], r)
            r = call(s, "code.diagnostics", {"path": "b.c"})
            check([d["path"] for d in r["diagnostics"]] == ["b.c"], r)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    if not CLANGD:
        print("SKIP: clangd is not installed (apt-get install clangd)")
        sys.exit(77)
    run_tests(globals(), per_test_timeout=180)
