# tests/code_diagnose_clangd.py: diagnose: true with the real language servers: clangd (Debian's)
# on a small C project, and pyright (npm's, in $LSP_PYRIGHT_DIR as tests/code_pyright.py finds
# it) on a Python file. An edit that calls an undeclared function returns exactly that new
# diagnostic; the edit that fixes it returns none new and that one fixed; a rename across files
# reports every file, none new. Through hermes serve; tests/code_diagnose.py covers exec, mcp,
# the missing cases and concurrency with a scripted server. The clangd tests are skipped (77),
# saying so, where clangd is not installed; the pyright one where pyright is not.
import os
import shutil
import sys
import tempfile

from lsp_direct import C_FILES, c_project
from server_lib import Server, check, expect_result, run_tests

CLANGD = shutil.which("clangd")
PYRIGHT_DIR = os.environ.get("LSP_PYRIGHT_DIR",
                             os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
                                 "~/.cache")), "hermes-lsp-pyright"))
PY_PATH = os.path.join(PYRIGHT_DIR, "node_modules", ".bin") + os.pathsep + os.environ.get("PATH", "")
PYRIGHT = shutil.which("pyright-langserver", path=PY_PATH)

FILES = C_FILES


def workspace():
    return c_project("hermes-diagnose-clangd.", ("-std=c11",))


def call(s, verb, params, timeout=120.0):
    r = expect_result(s.call(verb, params, timeout=timeout))
    check(r.get("succeeded") is True, r)
    return r


def entry(r, path):
    got = [e for e in r["diagnostics"] if e["path"] == path]
    check(len(got) == 1 and got[0]["unavailable"] is None, r)
    return got[0]


def test_clangd_an_undeclared_call_then_its_fix():
    if not CLANGD:
        print("clangd is not installed (apt-get install clangd): skipped")
        return "skip"
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            r = call(s, "fs.editFile", {"path": "a.c", "diagnose": True, "edits": [
                {"oldText": "return helper();", "newText": "return helper() + not_declared();"}]})
            e = entry(r, "a.c")
            # clang 16 and later call it an error, older ones a warning: either way, one.
            check(len(e["introduced"]) == 1 and e["fixed"] == [] and e["total"] == 1, e)
            d = e["introduced"][0]
            check("not_declared" in d["message"] and d["severity"] in ("error", "warning"), d)
            check((d["path"], d["line"], d["column"]) == ("a.c", 5, 20), d)
            r = call(s, "fs.editFile", {"path": "a.c", "diagnose": True, "edits": [
                {"oldText": " + not_declared()", "newText": ""}]})
            e = entry(r, "a.c")
            check(e["introduced"] == [] and e["total"] == 0, e)
            check(len(e["fixed"]) == 1 and "not_declared" in e["fixed"][0]["message"], e)
            # A symbol edit, and a brand-new file.
            r = call(s, "code.replaceSymbol", {"path": "b.c", "namePath": "helper",
                                               "diagnose": True,
                                               "body": "int helper(void)\n{\n\treturn x;\n}"})
            e = entry(r, "b.c")
            check(len(e["introduced"]) == 1 and "'x'" in e["introduced"][0]["message"] and
                  e["introduced"][0]["severity"] == "error", e)
            r = call(s, "code.replaceSymbol", {"path": "b.c", "namePath": "helper",
                                               "diagnose": True,
                                               "body": "int helper(void)\n{\n\treturn 2;\n}"})
            check(entry(r, "b.c")["introduced"] == [] and len(entry(r, "b.c")["fixed"]) == 1, r)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_clangd_a_header_changed_before_the_edit_is_not_the_edits():
    """A header deleted after the server last analysed b.c: b.c's error about it predates the
    edit, which is blamed only for what it brings."""
    if not CLANGD:
        print("clangd is not installed (apt-get install clangd): skipped")
        return "skip"
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            r = call(s, "code.diagnostics", {"path": "b.c"})
            check(r["diagnostics"] == [] and r["settled"], r)
            os.unlink(os.path.join(ws, "b.h"))
            r = call(s, "fs.editFile", {"path": "b.c", "diagnose": True, "edits": [
                {"oldText": "return 1;", "newText": "return y;"}]})
            e = entry(r, "b.c")
            check([d["message"] for d in e["introduced"]] == ["Use of undeclared identifier 'y'"]
                  or (len(e["introduced"]) == 1 and "'y'" in e["introduced"][0]["message"]), e)
            check(e["total"] == 2 and e["fixed"] == [], e)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_clangd_a_rename_across_files_introduces_nothing():
    if not CLANGD:
        print("clangd is not installed (apt-get install clangd): skipped")
        return "skip"
    ws = workspace()
    try:
        with Server(cwd=ws) as s:
            r = call(s, "code.rename", {"path": "b.c", "line": 3, "column": 5,
                                        "newName": "renamed_helper", "diagnose": True}, 180)
            paths = sorted(f["path"] for f in r["files"])
            check(paths == ["a.c", "b.c", "b.h"], r)
            check(sorted(e["path"] for e in r["diagnostics"]) == paths, r)
            for p in paths:
                e = entry(r, p)
                check(e["introduced"] == [] and e["fixed"] == [], e)
            # A dry run: no diagnostics.
            r = call(s, "code.rename", {"path": "b.c", "line": 3, "column": 5, "dryRun": True,
                                        "newName": "other", "diagnose": True}, 180)
            check(r["diagnostics"] == [], r)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def test_pyright_an_undefined_name():
    if not PYRIGHT:
        print("pyright is not installed in %s (.ci/run installs it): skipped" % PYRIGHT_DIR)
        return "skip"
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-diagnose-pyright."))
    try:
        with open(os.path.join(ws, "m.py"), "w") as f:
            f.write("def f(x):\n    return x + 1\n")
        with Server(cwd=ws, env=dict(os.environ, PATH=PY_PATH)) as s:
            r = call(s, "fs.editFile", {"path": "m.py", "diagnose": True, "edits": [
                {"oldText": "x + 1", "newText": "x + undefined_name"}]}, 180)
            e = entry(r, "m.py")
            check(len(e["introduced"]) == 1 and "undefined_name" in e["introduced"][0]["message"],
                  e)
            r = call(s, "fs.editFile", {"path": "m.py", "diagnose": True, "edits": [
                {"oldText": "x + undefined_name", "newText": "x + 2"}]}, 180)
            e = entry(r, "m.py")
            check(e["introduced"] == [] and len(e["fixed"]) == 1, e)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    if not CLANGD and not PYRIGHT:
        print("SKIP: neither clangd (apt-get install clangd) nor pyright is installed")
        sys.exit(77)
    run_tests(globals(), per_test_timeout=240)
