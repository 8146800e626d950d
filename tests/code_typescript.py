# tests/code_typescript.py: the code.* verbs with the real typescript-language-server and
# TypeScript (npm, pinned, which .ci/run installs outside the tree in $LSP_TS_DIR, default
# ~/.cache/hermes-lsp-typescript, with the package whose TypeScript source is tested:
# eventsource-parser's src/), in a copy with a tsconfig.json. Answers are checked against what
# the server answers when this test drives it directly. Skipped (77), saying so, where they are
# not installed.
import json
import os
import shutil
import sys
import tempfile

from lsp_direct import Direct, find_position, hermes_loc, lsp_loc, succeeded
from server_lib import Server, check, expect_result, run_tests

TS_DIR = os.environ.get("LSP_TS_DIR", os.path.join(os.environ.get(
    "XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "hermes-lsp-typescript"))
BIN = os.path.join(TS_DIR, "node_modules", ".bin")
PATH = BIN + os.pathsep + os.environ.get("PATH", "")
SERVER = shutil.which("typescript-language-server", path=PATH)
PACKAGE = os.path.join(TS_DIR, "node_modules", "eventsource-parser")
WS = None


def loc(l):
    return lsp_loc(l, WS)


def position(rel, text):
    return find_position(WS, rel, text)


hloc, ok = hermes_loc, succeeded


def call(s, verb, params, timeout=120.0):
    return ok(expect_result(s.call(verb, params, timeout=timeout)))


def direct(method, rel, line, col, extra=None):
    d = Direct([SERVER, "--stdio"], WS, "typescript")
    try:
        d.open(rel)
        d.settle(rel)  # its project is loaded in the background, with progress
        return d.at(method, rel, line, col, extra)
    finally:
        d.close()


def test_definition_and_references_equal_the_servers():
    line, col = position("src/stream.ts", "parser = createParser(")
    col += len("parser = ")
    want_def = sorted(loc(l) for l in direct("textDocument/definition", "src/stream.ts", line, col))
    dline, dcol = position("src/parse.ts", "function createParser(")
    dcol += len("function ")
    want_refs = sorted(loc(l) for l in direct("textDocument/references", "src/parse.ts", dline,
                                              dcol, {"context": {"includeDeclaration": True}}))
    check(len({r[0] for r in want_refs}) >= 2, want_refs)
    with Server(cwd=WS, env=dict(os.environ, PATH=PATH)) as s:
        r = call(s, "code.definition", {"path": "src/stream.ts", "line": line, "column": col})
        check(sorted(hloc(x) for x in r["definitions"]) == want_def, (r, want_def))
        r = call(s, "code.references", {"path": "src/parse.ts", "namePath": "createParser"})
        check(sorted(hloc(x) for x in r["references"]) == want_refs, (r, want_refs))
        r = call(s, "code.symbols", {"path": "src/parse.ts", "depth": 0, "kinds": ["function"]})
        names = [x["namePath"] for x in r["symbols"]]
        check("createParser" in names, names)
        r = call(s, "code.hover", {"path": "src/parse.ts", "namePath": "createParser"})
        check("createParser" in r["text"], r)


if __name__ == "__main__":
    if not SERVER or not os.path.isdir(os.path.join(PACKAGE, "src")):
        print("SKIP: typescript-language-server, typescript or eventsource-parser is not "
              "installed in %s (see .ci/run)" % TS_DIR)
        sys.exit(77)
    WS = os.path.realpath(tempfile.mkdtemp(prefix="hermes-ts-test."))
    shutil.copytree(os.path.join(PACKAGE, "src"), os.path.join(WS, "src"))
    with open(os.path.join(WS, "tsconfig.json"), "w") as f:
        json.dump({"include": ["src"], "compilerOptions": {
            "target": "es2022", "module": "esnext", "moduleResolution": "bundler",
            "allowImportingTsExtensions": True, "noEmit": True, "strict": True}}, f)
    try:
        run_tests(globals(), per_test_timeout=300)
    finally:
        shutil.rmtree(WS, ignore_errors=True)
