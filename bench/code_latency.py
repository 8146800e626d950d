#!/usr/bin/env python3
# bench/code_latency.py: what Hermes adds to a language server's answers, for each server the
# tests use, on the same real code as they do: clangd on a copy of Hermes' own src/ with a
# compile_commands.json (tests/code_clangd.py), pyright on a copy of python3-jwt's source
# (tests/code_pyright.py), typescript-language-server on a copy of eventsource-parser's src/
# (tests/code_typescript.py). Each server is driven straight by the tests' own LSP client
# (tests/lsp_direct.py) and through `hermes serve`: the cold start (start, initialize, first
# definition), then N warm textDocument/definition and references at one use of a function used
# across files against code.definition and code.references at the same place; and a workspace
# symbol query (code.symbols by query) against `rg -w NAME` on the same tree. Prints medians and
# 90th percentiles in ms; a server that is not installed is skipped, saying so.
#
#   HERMES=_build/hermes top_builddir=_build bench/code_latency.py [--servers clangd,pyright,typescript]
#       [--results DIR]       environment: N (default 200), LSP_PYRIGHT_DIR, LSP_TS_DIR (as .ci/run)
#
# --results DIR also writes, for bench/compare, one file per row and side in its client's format
# (DIR/r.code<what>_<server>.h for Hermes, .r for the reference; what: def, ref, sym, cold).
# Exit status: 0, or 77 if none of the servers asked for is installed.
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
os.environ.setdefault("top_srcdir", os.path.join(HERE, ".."))
os.environ.setdefault("top_builddir", os.path.join(HERE, "..", "_build"))
os.environ.setdefault("HERMES", os.path.join(os.environ["top_builddir"], "hermes"))
os.environ["HERMES"] = os.path.abspath(os.environ["HERMES"])

from lsp_direct import Direct  # noqa: E402
from server_lib import Server, expect_result  # noqa: E402

N = int(os.environ.get("N", "200"))
CACHE = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
PYRIGHT_BIN = os.path.join(os.environ.get("LSP_PYRIGHT_DIR", os.path.join(
    CACHE, "hermes-lsp-pyright")), "node_modules", ".bin")
TS_DIR = os.environ.get("LSP_TS_DIR", os.path.join(CACHE, "hermes-lsp-typescript"))
TS_BIN = os.path.join(TS_DIR, "node_modules", ".bin")
PATH = os.pathsep.join([PYRIGHT_BIN, TS_BIN, os.environ.get("PATH", "")])
JWT = "/usr/lib/python3/dist-packages/jwt"
TS_PACKAGE = os.path.join(TS_DIR, "node_modules", "eventsource-parser")


def position(ws, rel, text, skip=0):
    """1-based line and column of text's first occurrence in rel, plus skip characters."""
    for n, line in enumerate(open(os.path.join(ws, rel), encoding="utf-8"), 1):
        if text in line:
            return n, line.index(text) + 1 + skip
    raise AssertionError("%s not in %s" % (text, rel))


def clangd_workspace():
    import code_clangd  # its workspace maker (compile_commands.json from the build's flags)
    return code_clangd.make_workspace()


def pyright_workspace():
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-bench-pyright."))
    shutil.copytree(JWT, os.path.join(ws, "jwt"), ignore=shutil.ignore_patterns("__pycache__"))
    return ws


def typescript_workspace():
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-bench-ts."))
    shutil.copytree(os.path.join(TS_PACKAGE, "src"), os.path.join(ws, "src"))
    with open(os.path.join(ws, "tsconfig.json"), "w") as f:
        json.dump({"include": ["src"], "compilerOptions": {
            "target": "es2022", "module": "esnext", "moduleResolution": "bundler",
            "allowImportingTsExtensions": True, "noEmit": True, "strict": True}}, f)
    return ws


# name: program, arguments, languageId, code.* language, workspace maker, why it may be missing,
# the file and text of the use asked at (and how far into the text the name starts), the name,
# the tree rg searches, whether the server reports its project loading as progress
SERVERS = {
    "clangd": dict(program="clangd", args=[], language_id="c", language="c",
                   workspace=clangd_workspace, missing=lambda: None,
                   file="src/verbs/fs_read.c", use="hermes_verbs_open_regular(call, args", skip=0,
                   name="hermes_verbs_open_regular", tree="src", progress=True),
    "pyright": dict(program="pyright-langserver", args=["--stdio"], language_id="python",
                    language="python", workspace=pyright_workspace,
                    missing=lambda: None if os.path.isdir(JWT) else "python3-jwt is not installed",
                    file="jwt/api_jwt.py", use="self.decode_complete(", skip=len("self."),
                    name="decode_complete", tree="jwt", progress=False),
    "typescript": dict(program="typescript-language-server", args=["--stdio"],
                       language_id="typescript", language="typescript",
                       workspace=typescript_workspace,
                       missing=lambda: None if os.path.isdir(os.path.join(TS_PACKAGE, "src"))
                       else "eventsource-parser is not installed in " + TS_DIR,
                       file="src/stream.ts", use="parser = createParser(", skip=len("parser = "),
                       name="createParser", tree="src", progress=True),
}
ROW = {"clangd": "c", "pyright": "py", "typescript": "ts"}


def ms(samples):
    s = sorted(samples)
    return "median %.2f ms, p90 %.2f ms" % (statistics.median(s) * 1e3, s[int(len(s) * 0.9)] * 1e3)


def timed(fn, n=N):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def measure(name, cfg, program):
    """The figures of one server: {row: (Hermes samples, reference samples)}, in seconds."""
    ws = cfg["workspace"]()
    try:
        f = cfg["file"]
        line, col = position(ws, f, cfg["use"], cfg["skip"])
        refs = {"context": {"includeDeclaration": True}}
        # Straight: start, initialize, open, wait for the project (as Hermes does before answering
        # from it: clangd answers at once and indexes behind), first definition.
        t = time.perf_counter()
        d = Direct([program] + cfg["args"], ws, cfg["language_id"])
        d.open(f)
        if name != "clangd":
            d.settle(f, progress=cfg["progress"])
        d.at("textDocument/definition", f, line, col)
        direct_cold = time.perf_counter() - t
        d.settle(f, progress=cfg["progress"])
        direct = {
            "def": timed(lambda: d.at("textDocument/definition", f, line, col)),
            "ref": timed(lambda: d.at("textDocument/references", f, line, col, refs)),
        }
        d.close()
        with Server(cwd=ws, env=dict(os.environ, PATH=PATH)) as s:
            def call(verb, params):
                r = expect_result(s.call(verb, params, timeout=300))
                assert r.get("succeeded") is True, r
                return r
            at = {"path": f, "line": line, "column": col}
            t = time.perf_counter()
            call("code.definition", at)
            hermes_cold = time.perf_counter() - t
            query = {"query": cfg["name"], "language": cfg["language"]}
            call("code.symbols", query)  # waits for the index
            through = {
                "def": timed(lambda: call("code.definition", at)),
                "ref": timed(lambda: call("code.references", at)),
            }
            sym = timed(lambda: call("code.symbols", query))
        rg = shutil.which("rg")
        grep = timed(lambda: subprocess.run([rg, "-w", cfg["name"], cfg["tree"]], cwd=ws,
                                            stdout=subprocess.DEVNULL), n=min(N, 50)) if rg else None
        return {"def": (through["def"], direct["def"]), "ref": (through["ref"], direct["ref"]),
                "sym": (sym, grep), "cold": ([hermes_cold], [direct_cold])}
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def write_results(out, name, rows):
    """bench/compare's files: its client's key=value line, per_s the median in seconds."""
    os.makedirs(out, exist_ok=True)
    for what, (h, r) in rows.items():
        for side, samples in (("h", h), ("r", r)):
            if not samples:
                continue
            with open(os.path.join(out, "r.code%s_%s.%s" % (what, ROW[name], side)), "w") as fo:
                fo.write("mode=serve runs=1 count=%d per_s=%.9f\n"
                         % (len(samples), statistics.median(samples)))


def main(argv):
    names, out = list(SERVERS), None
    while argv:
        opt = argv.pop(0)
        if opt == "--servers" and argv:
            names = argv.pop(0).split(",")
        elif opt == "--results" and argv:
            out = argv.pop(0)
        else:
            print("usage: bench/code_latency.py [--servers clangd,pyright,typescript] "
                  "[--results DIR]", file=sys.stderr)
            return 2
    for n in names:
        if n not in SERVERS:
            print("code_latency: no server '%s' (servers: %s)" % (n, ", ".join(SERVERS)),
                  file=sys.stderr)
            return 2
    ran = 0
    for name in names:
        cfg = SERVERS[name]
        program = shutil.which(cfg["program"], path=PATH)
        why = cfg["missing"]() if program else cfg["program"] + " is not installed (see .ci/run)"
        if why:
            print("%s: skipped, %s" % (name, why))
            continue
        rows = measure(name, cfg, program)
        ran += 1
        print("%s (load average %s)" % (name, " ".join(open("/proc/loadavg").read().split()[:3])))
        (hc,), (dc,) = rows["cold"]
        print("  cold start to the first definition: direct %.0f ms, through Hermes %.0f ms"
              % (dc * 1e3, hc * 1e3))
        for k, label in (("def", "definition"), ("ref", "references")):
            h, d = rows[k]
            dm, hm = statistics.median(d), statistics.median(h)
            print("  warm %-10s  direct: %s   through hermes serve: %s   added %.2f ms (%.0f%%)"
                  % (label, ms(d), ms(h), (hm - dm) * 1e3, (hm - dm) / dm * 100))
        sym, grep = rows["sym"]
        print("  workspace symbol %s: code.symbols %s" % (cfg["name"], ms(sym)))
        if grep:
            print("  %s rg -w on the same %s/: %s" % (" " * len(cfg["name"]), cfg["tree"], ms(grep)))
        if out:
            write_results(out, name, rows)
    return 0 if ran else 77


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
