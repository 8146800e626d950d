# tests/code_pyright.py: the code.* verbs with the real pyright (npm's pyright, pinned, which
# .ci/run installs outside the tree in $LSP_PYRIGHT_DIR, default ~/.cache/hermes-lsp-pyright) on
# the Python source of a library Debian packages (python3-jwt), in a copy. Answers are checked
# against what pyright answers when this test drives it directly. Skipped (77), saying so, where
# pyright or python3-jwt is not installed.
import os
import shutil
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
