#!/usr/bin/env python3
# bench/code_latency.py: what Hermes adds to a language server's answers. On a copy of Hermes' own
# src/ with a compile_commands.json (as tests/code_clangd.py makes it), clangd is driven straight
# by the tests' own LSP client (tests/lsp_direct.py) and through `hermes serve`: the cold start
# (start, initialize, first definition), then N warm textDocument/definition and references at one
# call of hermes_verbs_open_regular against code.definition and code.references at the same place;
# and a workspace symbol query (code.symbols by query) against `rg -w NAME` on the same tree.
# Prints medians and 90th percentiles in ms.
#
#   HERMES=_build/hermes top_builddir=_build bench/code_latency.py    environment: N (default 200)
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
os.environ.setdefault("top_srcdir", os.path.join(HERE, ".."))
os.environ.setdefault("top_builddir", os.path.join(HERE, "..", "_build"))
os.environ.setdefault("HERMES", os.path.join(os.environ["top_builddir"], "hermes"))
os.environ["HERMES"] = os.path.abspath(os.environ["HERMES"])

import code_clangd  # noqa: E402  (its workspace maker)
from lsp_direct import Direct  # noqa: E402
from server_lib import Server, expect_result  # noqa: E402

N = int(os.environ.get("N", "200"))
FILE = "src/verbs/fs_read.c"
NAME = "hermes_verbs_open_regular"


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


def main():
    if not shutil.which("clangd"):
        print("clangd is not installed")
        return 77
    ws = code_clangd.make_workspace()
    code_clangd.WS = ws
    try:
        line, col = code_clangd.position(FILE, NAME + "(call, args")
        t = time.perf_counter()
        d = Direct(["clangd"], ws, "c")
        d.open(FILE)
        d.at("textDocument/definition", FILE, line, col)
        direct_cold = time.perf_counter() - t
        d.settle(FILE)
        direct = {
            "definition": timed(lambda: d.at("textDocument/definition", FILE, line, col)),
            "references": timed(lambda: d.at("textDocument/references", FILE, line, col,
                                             {"context": {"includeDeclaration": True}})),
        }
        d.close()
        with Server(cwd=ws) as s:
            def call(verb, params):
                r = expect_result(s.call(verb, params, timeout=300))
                assert r.get("succeeded") is True, r
                return r
            at = {"path": FILE, "line": line, "column": col}
            t = time.perf_counter()
            call("code.definition", at)
            hermes_cold = time.perf_counter() - t
            call("code.symbols", {"query": NAME, "language": "c"})  # waits for the index
            through = {
                "definition": timed(lambda: call("code.definition", at)),
                "references": timed(lambda: call("code.references", at)),
            }
            sym = timed(lambda: call("code.symbols", {"query": NAME, "language": "c"}))
        rg = shutil.which("rg")
        grep = timed(lambda: subprocess.run([rg, "-w", NAME, "src"], cwd=ws,
                                            stdout=subprocess.DEVNULL), n=min(N, 50)) if rg else None
        print("clangd cold start to the first definition: direct %.0f ms, through Hermes %.0f ms"
              % (direct_cold * 1e3, hermes_cold * 1e3))
        for k in ("definition", "references"):
            dm, hm = statistics.median(direct[k]), statistics.median(through[k])
            print("warm %-10s  direct: %s   through hermes serve: %s   added %.2f ms (%.0f%%)"
                  % (k, ms(direct[k]), ms(through[k]), (hm - dm) * 1e3, (hm - dm) / dm * 100))
        print("workspace symbol %s: code.symbols %s" % (NAME, ms(sym)))
        if grep:
            print("                 rg -w on the same src/: %s" % ms(grep))
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
