#!/usr/bin/env python3
# bench/patch/run.py: runs the corpus of bench/patch/corpus.py through fs.applyPatch (`hermes
# exec`, one process per case in a fresh directory) and reports the share of cases applied
# correctly, refused with a diagnostic (a message naming lines), and misapplied (a success whose
# file is not the right result, or a success where the only right answer is a refusal): the
# goal is 0 misapplied. With --codex, the apply_patch cases also go through Codex's own
# apply_patch (the native binary of the @openai/codex npm package run under the name
# apply_patch), and where both apply, the files are compared byte for byte. With --mcp-fs, the
# search_replace cases also go to the reference MCP filesystem server's edit_file (npm
# @modelcontextprotocol/server-filesystem; PATH is its dist/index.js), each block as one
# {oldText, newText} edit, judged the same way.
# Usage: run.py --hermes PATH [--codex PATH] [--mcp-fs PATH] [--keep DIR]
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus  # noqa: E402


def run_hermes(hermes, d, c):
    env = {"verb": "fs.applyPatch", "arguments": {"patch": c["patch"], "format": c["format"]}}
    p = subprocess.run([hermes, "exec", "--root", d], input=json.dumps(env).encode(),
                       capture_output=True, timeout=60)
    r = json.loads(p.stdout.decode())
    return r.get("succeeded") is True, r.get("errorMessage") or ""


def run_codex(codex, d, c):
    p = subprocess.run([codex, c["patch"]], cwd=d, capture_output=True, timeout=60)
    return p.returncode == 0, (p.stderr or p.stdout).decode(errors="replace")


class McpFs:
    """One reference filesystem server over stdio, allowed the whole work directory."""

    def __init__(self, index_js, root):
        self.p = subprocess.Popen(["node", index_js, root], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.id = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def call(self, method, params):
        self.id += 1
        self.send({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def edit(self, path, old, new):
        r = self.call("tools/call", {"name": "edit_file", "arguments": {
            "path": path, "edits": [{"oldText": old, "newText": new}]}})
        res = r.get("result") or {}
        text = "".join(c.get("text", "") for c in res.get("content", []))
        return not res.get("isError") and "error" not in r, text or json.dumps(r.get("error"))

    def close(self):
        self.p.stdin.close()
        self.p.wait(10)


def sr_blocks(patch):
    """The SEARCH and REPLACE text of a search_replace case (one block)."""
    body = patch.split("<<<<<<< SEARCH\n", 1)[1]
    old, rest = body.split("=======\n", 1)
    new = rest.split(">>>>>>> REPLACE\n", 1)[0]
    return old[:-1] if old else old, new[:-1] if new else new


def put(d, c):
    os.makedirs(d)
    with open(os.path.join(d, c["path"]), "w", newline="") as f:
        f.write(c["file"])


def get(d, c):
    try:
        with open(os.path.join(d, c["path"]), "rb") as f:
            return f.read().decode()
    except FileNotFoundError:
        return None


def judge(ok, msg, got, c):
    if ok:
        return "correct" if c["expected"] is not None and got == c["expected"] else "misapplied"
    if not re.search(r"line", msg):
        return "refused-without-diagnostic"
    return "refused-right" if c["expected"] is None else "refused"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hermes", required=True)
    ap.add_argument("--codex")
    ap.add_argument("--mcp-fs")
    ap.add_argument("--keep")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="hermes-patch-bench.")
    total = collections.Counter()
    by_kind = collections.defaultdict(collections.Counter)
    cmp = collections.Counter()
    cmp_notes = collections.defaultdict(list)
    bad = []
    mcp = McpFs(a.mcp_fs, os.path.realpath(work)) if a.mcp_fs else None
    mcp_total = collections.Counter()
    mcp_kind = collections.defaultdict(collections.Counter)
    for i, c in enumerate(corpus.cases()):
        d = os.path.join(work, "h%04d" % i)
        put(d, c)
        ok, msg = run_hermes(a.hermes, d, c)
        got = get(d, c)
        v = judge(ok, msg, got, c)
        total[v] += 1
        by_kind[c["kind"]][v] += 1
        if v in ("misapplied", "refused-without-diagnostic"):
            bad.append((c["name"], v, msg))
        if a.codex and c["format"] == "apply_patch":
            dc = os.path.join(work, "c%04d" % i)
            put(dc, c)
            cok, cmsg = run_codex(a.codex, dc, c)
            cgot = get(dc, c)
            cv = judge(cok, cmsg if cok else "line", cgot, c)
            cmp["codex-" + cv] += 1
            if ok and cok:
                same = got == cgot
                cmp["both applied, identical" if same else "both applied, different"] += 1
                if not same:
                    cmp_notes[c["kind"]].append(c["name"])
            elif ok:
                cmp["hermes applied, codex refused"] += 1
            elif cok:
                cmp["codex applied, hermes refused"] += 1
                cmp_notes["codex-only:" + c["kind"] + ":" + cv].append(c["name"])
            else:
                cmp["both refused"] += 1
        if mcp and c["format"] == "search_replace":
            dm = os.path.join(os.path.realpath(work), "m%04d" % i)
            put(dm, c)
            old, new = sr_blocks(c["patch"])
            mok, mmsg = mcp.edit(os.path.join(dm, c["path"]), old, new)
            mv = judge(mok, mmsg if mok else "line", get(dm, c), c)
            mcp_total[mv] += 1
            mcp_kind[c["kind"]][mv] += 1
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)
    if mcp:
        mcp.close()
    n = sum(total.values())
    expected_ok = sum(1 for c in corpus.cases() if c["expected"] is not None)
    print("cases: %d (%d with a right result, %d where only a refusal is right)" %
          (n, expected_ok, n - expected_ok))
    for k in ("correct", "refused-right", "refused", "refused-without-diagnostic", "misapplied"):
        print("  %-28s %4d  %5.1f%%" % (k, total[k], 100.0 * total[k] / n))
    print("by kind (correct / refused-right / refused / misapplied):")
    for kind in sorted(by_kind):
        t = by_kind[kind]
        print("  %-15s %3d / %3d / %3d / %3d" % (kind, t["correct"], t["refused-right"],
                                               t["refused"], t["misapplied"]))
    if a.codex:
        print("Codex apply_patch on the %d apply_patch cases:" %
              sum(v for k, v in cmp.items() if k.startswith("codex-")))
        for k in sorted(cmp):
            print("  %-34s %4d" % (k, cmp[k]))
        for k in sorted(cmp_notes):
            print("  %s: %s" % (k, " ".join(cmp_notes[k][:6])))
    if mcp:
        print("MCP filesystem server edit_file on the %d search_replace cases:" %
              sum(mcp_total.values()))
        for k in ("correct", "refused-right", "refused", "misapplied"):
            print("  %-28s %4d" % (k, mcp_total[k]))
        for kind in sorted(mcp_kind):
            t = mcp_kind[kind]
            print("  %-18s %3d / %3d / %3d / %3d" % (kind, t["correct"], t["refused-right"],
                                                   t["refused"], t["misapplied"]))
    for name, v, msg in bad[:20]:
        print("BAD %s: %s: %s" % (name, v, msg[:300]))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if total["misapplied"] else 0


if __name__ == "__main__":
    sys.exit(main())
