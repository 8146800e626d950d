# tests/code_pyright.py: the code.* verbs with the real pyright (npm's pyright, pinned, which
# .ci/run installs outside the tree in $LSP_PYRIGHT_DIR, default ~/.cache/hermes-lsp-pyright) on
# the Python source of a library Debian packages (python3-jwt), in a copy. Answers are checked
# against what pyright answers when this test drives it directly. Skipped (77), saying so, where
# pyright or python3-jwt is not installed. A rename across files is checked by pyright itself: no
# new error, from the language server (code.diagnostics) and from its CLI over the whole copy.
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from lsp_direct import Direct, find_position, hermes_loc, lsp_loc, succeeded
from server_lib import Server, check, expect_result, run_tests

PYRIGHT_DIR = os.environ.get("LSP_PYRIGHT_DIR",
                             os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser(
                                 "~/.cache")), "hermes-lsp-pyright"))
BIN = os.path.join(PYRIGHT_DIR, "node_modules", ".bin")
PATH = BIN + os.pathsep + os.environ.get("PATH", "")
PYRIGHT = shutil.which("pyright-langserver", path=PATH)
PYRIGHT_CLI = shutil.which("pyright", path=PATH)  # the same package's command-line checker
LIBRARY = "/usr/lib/python3/dist-packages/jwt"
WS = None
FILE = "jwt/api_jwt.py"


def loc(l):
    return lsp_loc(l, WS)


def position(rel, text):
    return find_position(WS, rel, text)


hloc, ok = hermes_loc, succeeded


def hermes():
    return Server(cwd=WS, env=dict(os.environ, PATH=PATH))


def call(s, verb, params, timeout=120.0):
    return ok(expect_result(s.call(verb, params, timeout=timeout)))


def direct(method, rel, line, col, extra=None):
    d = Direct([PYRIGHT, "--stdio"], WS, "python")
    try:
        d.open(rel)
        d.settle(rel, progress=False)
        return d.at(method, rel, line, col, extra)
    finally:
        d.close()


def test_definition_equals_pyrights():
    line, col = position(FILE, "self.decode_complete(")
    col += len("self.")
    want = sorted(loc(l) for l in direct("textDocument/definition", FILE, line, col))
    with hermes() as s:
        r = call(s, "code.definition", {"path": FILE, "line": line, "column": col})
        check(sorted(hloc(x) for x in r["definitions"]) == want, (r, want))
        r = call(s, "code.definition", {"path": FILE, "namePath": "PyJWT/decode_complete"})
        check(sorted(hloc(x) for x in r["definitions"]) == want, (r, want))


def test_references_equal_pyrights():
    line, col = position(FILE, "def decode_complete(")
    col += len("def ")
    want = sorted(loc(l) for l in direct("textDocument/references", FILE, line, col,
                                         {"context": {"includeDeclaration": True}}))
    check(len(want) >= 2, want)
    with hermes() as s:
        r = call(s, "code.references", {"path": FILE, "namePath": "PyJWT/decode_complete"})
        check(sorted(hloc(x) for x in r["references"]) == want, (r, want))
        inside = [x for x in r["references"] if x["symbol"] == "PyJWT/decode"]
        check(inside and "decode_complete" in inside[0]["text"], r)


def test_outline_and_hover():
    with hermes() as s:
        r = call(s, "code.symbols", {"path": FILE, "depth": 1, "kinds": ["class", "method"]})
        names = [x["namePath"] for x in r["symbols"]]
        check(names[0] == "PyJWT" and "PyJWT/encode" in names and "PyJWT/decode" in names, names)
        r = call(s, "code.hover", {"path": FILE, "namePath": "PyJWT/encode"})
        check("encode" in r["text"], r)


def test_diagnostics_of_an_error():
    with open(os.path.join(WS, "broken.py"), "w", encoding="utf-8") as f:
        f.write('s = "é😀"; x = undefined_name\n')
    with hermes() as s:
        r = call(s, "code.diagnostics", {"path": "broken.py"})
        errs = [d for d in r["diagnostics"] if "undefined_name" in d["message"]]
        check(r["settled"] and errs, r)
        check(errs[0]["column"] == 's = "é😀"; x = undefined_name'.index("undefined_name") + 1, errs)


OLD, NEW = "base64url_decode", "b64url_decode_renamed"


def errors_of(diagnostics, ws):
    """The errors of pyright's diagnostics (code.diagnostics' or its CLI's), as a multiset of
    (file, rule, message): an error is new when none like it was there before. The new name in a
    message reads as the old one (the same error, its symbol renamed, is not new)."""
    return collections.Counter(
        (d["path"] if "path" in d else os.path.relpath(d["file"], ws), d.get("code") or d.get("rule"),
         d["message"].replace(NEW, OLD))
        for d in diagnostics if d["severity"] == "error")


def cli_errors(ws):
    p = subprocess.run([PYRIGHT_CLI, "--outputjson", "jwt"], cwd=ws, capture_output=True,
                       text=True, timeout=600)
    check(p.returncode in (0, 1), (p.returncode, p.stderr))
    return errors_of(json.loads(p.stdout)["generalDiagnostics"], ws)


def test_rename_across_files_and_pyright_reports_no_new_error():
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-pyright-rename."))
    shutil.copytree(os.path.join(WS, "jwt"), os.path.join(ws, "jwt"))
    uses = sorted("jwt/" + f for f in os.listdir(os.path.join(ws, "jwt")) if f.endswith(".py") and
                  re.search(r"\b%s\b" % OLD, open(os.path.join(ws, "jwt", f)).read()))
    check(len(uses) >= 3, uses)
    try:
        with Server(cwd=ws, env=dict(os.environ, PATH=PATH)) as s:
            def errors(files):
                out = collections.Counter()
                for f in files:
                    r = call(s, "code.diagnostics", {"path": f})
                    check(r["settled"], r)
                    out += errors_of(r["diagnostics"], ws)
                return out
            target = {"path": "jwt/utils.py", "namePath": OLD, "newName": NEW}
            r = call(s, "code.rename", dict(target, dryRun=True))
            check(sorted(f["path"] for f in r["files"]) == uses, (r, uses))
            before = errors(uses)
            cli_before = cli_errors(ws) if PYRIGHT_CLI else None
            r = call(s, "code.rename", target)
            check(sorted(f["path"] for f in r["files"]) == uses and
                  all(f["version"] and f["edits"] >= 1 for f in r["files"]), r)
            for f in uses:
                text = open(os.path.join(ws, f), encoding="utf-8").read()
                check(not re.search(r"\b%s\b" % OLD, text) and NEW in text, f)
            # The language server, told of the new texts, finds no error that was not there.
            new = errors(uses) - before
            check(not new, "errors the rename brought: %s" % dict(new))
        if cli_before is not None:
            # The whole copy, checked afresh by pyright's own CLI; a file importing the old name
            # proves the CLI sees a name that is gone (and that it is gone).
            with open(os.path.join(ws, "jwt", "zz_control.py"), "w") as f:
                f.write("from .utils import %s\n" % OLD)
            after = cli_errors(ws)
            control = [e for e in after if e[0] == "jwt/zz_control.py"]
            check(control and OLD in control[0][2], after)
            new = collections.Counter({e: n for e, n in after.items()
                                       if e[0] != "jwt/zz_control.py"}) - cli_before
            check(not new, "errors pyright's CLI finds since the rename: %s" % dict(new))
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    if not PYRIGHT:
        print("SKIP: pyright is not installed (npm install --prefix %s pyright)" % PYRIGHT_DIR)
        sys.exit(77)
    if not os.path.isdir(LIBRARY):
        print("SKIP: python3-jwt is not installed (its source is the code tested)")
        sys.exit(77)
    WS = os.path.realpath(tempfile.mkdtemp(prefix="hermes-pyright-test."))
    shutil.copytree(LIBRARY, os.path.join(WS, "jwt"), ignore=shutil.ignore_patterns("__pycache__"))
    try:
        run_tests(globals(), per_test_timeout=300)
    finally:
        shutil.rmtree(WS, ignore_errors=True)
