# tests/code_clangd.py: the code.* verbs with the real clangd (Debian's) on Hermes' own tree, in a
# copy with a compile_commands.json made from the build's flags. Each answer is checked against
# what clangd answers when this test drives it directly with its own small LSP client. Also: 64
# concurrent code.references, an outline, diagnostics with columns in characters of a line holding
# multi-byte characters; clangd's preambles kept in a TMPDIR of its own that goes with it. Skipped
# (77), saying so, where clangd is not installed.
import json
import os
import shutil
import subprocess
import sys
import tempfile

from lsp_direct import Direct, find_position, hermes_loc, lsp_loc, succeeded
from server_lib import Server, check, expect_result, run_tests

CLANGD = shutil.which("clangd")
TOP_SRCDIR = os.environ.get("top_srcdir", "..")
TOP_BUILDDIR = os.environ.get("top_builddir", ".")
WS = None


def make_workspace():
    """A copy of src/ and include/ with the generated headers, and its compilation database."""
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-clangd-test."))
    for d in ("src", "include"):
        shutil.copytree(os.path.join(TOP_SRCDIR, d), os.path.join(ws, d),
                        ignore=shutil.ignore_patterns("*.o", "*.lo", ".deps", ".libs"))
    os.makedirs(os.path.join(ws, "build/include/hermes"))
    os.makedirs(os.path.join(ws, "build/src/verbs"))
    for rel in ("config.h", "include/hermes/types.h", "src/verbs/gen_handlers.h"):
        # made in the build tree, or shipped in a release tarball's source tree (distcheck)
        built = os.path.join(TOP_BUILDDIR, rel)
        shutil.copy(built if os.path.exists(built) else os.path.join(TOP_SRCDIR, rel),
                    os.path.join(ws, "build", rel))
    cmds = []
    for dirpath, _, files in os.walk(os.path.join(ws, "src")):
        for f in sorted(files):
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(dirpath, f), ws)
                cmds.append({"directory": ws, "file": rel, "arguments": [
                    "cc", "-DHAVE_CONFIG_H", "-Ibuild", "-I.", "-Ibuild/include", "-Iinclude",
                    "-Ibuild/src", "-Isrc", "-c", rel]})
    with open(os.path.join(ws, "compile_commands.json"), "w") as out:
        json.dump(cmds, out)
    return ws


def loc(l):
    return lsp_loc(l, WS)


def position(rel, text):
    return find_position(WS, rel, text)


hloc, ok = hermes_loc, succeeded


def hermes():
    return Server(cwd=WS)


def call(s, verb, params, timeout=180.0):
    return ok(expect_result(s.call(verb, params, timeout=timeout)))


DIRECT = {}


def direct_answers():
    """definition and references of hermes_verbs_open_regular at a call in fs_read.c."""
    if not DIRECT:
        d = Direct([CLANGD], WS, "c")
        try:
            d.open("src/verbs/fs_read.c")
            d.settle("src/verbs/fs_read.c")
            line, col = position("src/verbs/fs_read.c", "hermes_verbs_open_regular(call, args")
            DIRECT["at"] = (line, col)
            DIRECT["definition"] = sorted(loc(l) for l in d.at("textDocument/definition",
                                                               "src/verbs/fs_read.c", line, col))
            DIRECT["references"] = sorted(loc(l) for l in d.at(
                "textDocument/references", "src/verbs/fs_read.c", line, col,
                {"context": {"includeDeclaration": True}}))
        finally:
            d.close()
    return DIRECT


def test_definition_and_references_equal_clangds():
    want = direct_answers()
    line, col = want["at"]
    with hermes() as s:
        r = call(s, "code.references", {"path": "src/verbs/fs_read.c", "line": line, "column": col})
        got = sorted(hloc(x) for x in r["references"])
        check(got == want["references"], (got, want["references"]))
        check(len(got) >= 5 and r["truncated"] is False, r)
        for x in r["references"]:
            text = open(os.path.join(WS, x["path"])).read().split("\n")[x["line"] - 1]
            check(x["text"] == text, x)
            if x["path"] == "src/verbs/fs_read.c" and x["line"] == line:
                check(x["symbol"] == "hermes_verb_fs_read_range", x)
        r = call(s, "code.definition", {"path": "src/verbs/fs_read.c", "line": line, "column": col})
        got = sorted(hloc(x) for x in r["definitions"])
        check(got == want["definition"], (got, want["definition"]))
        # Again: one request to clangd (at a use, the hop back from a declaration is spared: the
        # file's outline, kept since the references, says the position is on no symbol's name).
        def asked():
            return [e["requests"] for e in call(s, "code.servers", {})["servers"]
                    if e["name"] == "clangd"][0]
        n = asked()
        call(s, "code.definition", {"path": "src/verbs/fs_read.c", "line": line, "column": col})
        check(asked() == n + 1, (n, asked()))
        # By name path, from the workspace index: the definition, not the declaration.
        r = call(s, "code.definition", {"namePath": "hermes_verbs_open_regular", "language": "c"})
        check([hloc(x) for x in r["definitions"]] == want["definition"], r)
        # At the definition itself (clangd answers with the declaration; the second hop, made at
        # a symbol's name only, leads back), twice: the second time its file's outline is kept.
        dpath, dline, dcol = want["definition"][0][:3]
        for _ in range(2):
            r = call(s, "code.definition", {"path": dpath, "line": dline, "column": dcol})
            check([hloc(x) for x in r["definitions"]] == want["definition"], r)
        r = call(s, "code.references", {"namePath": "hermes_verbs_open_regular", "language": "c",
                                        "maxResults": 2})
        check(len(r["references"]) == 2 and r["truncated"] is True, r)


def test_64_concurrent_references():
    want = direct_answers()
    line, col = want["at"]
    with hermes() as s:
        call(s, "code.references", {"path": "src/verbs/fs_read.c", "line": line, "column": col})
        ids = [s.request("code.references", {"path": "src/verbs/fs_read.c", "line": line,
                                             "column": col}) for _ in range(64)]
        for i in ids:
            r = ok(expect_result(s.reply_to(i, timeout=120)))
            check(sorted(hloc(x) for x in r["references"]) == want["references"], r)


def test_outline_and_workspace_symbols():
    with hermes() as s:
        r = call(s, "code.symbols", {"path": "src/lsp/uri.c", "includeBody": True})
        names = [x["namePath"] for x in r["symbols"]]
        check(names == ["hermes_lsp_uri_append", "hermes_lsp_uri_path", "seq_len",
                        "hermes_lsp_u16_to_chars", "hermes_lsp_chars_to_u16", "hermes_lsp_offset_of"], names)
        f = r["symbols"][2]
        check(f["kind"] == "function" and f["body"].startswith("static size_t seq_len(unsigned char b)\n{"), f)
        check((f["line"], f["column"]) == position("src/lsp/uri.c", "seq_len(unsigned char b)"), f)
        r = call(s, "code.symbols", {"query": "hermes_ws_open", "language": "c", "substring": True,
                                     "kinds": ["function"]})
        names = sorted(x["name"] for x in r["symbols"])
        check("hermes_ws_open" in names and "hermes_ws_open_path" in names, names)
        check(all("hermes_ws_open" in n for n in names), names)
        r = call(s, "code.hover", {"namePath": "hermes_lsp_uri_path", "path": "src/lsp/uri.c"})
        check("file URI" in r["text"], r)


def test_diagnostics_columns_are_characters():
    line = 'const char *s = "é€😀"; int x = undefined_name;\n'
    with open(os.path.join(WS, "src/broken.c"), "w", encoding="utf-8") as f:
        f.write("void f(void)\n{\n" + line + "}\n")
    with hermes() as s:
        r = call(s, "code.diagnostics", {"path": "src/broken.c"})
        check(r["settled"] is True, r)
        errs = [d for d in r["diagnostics"] if "undefined_name" in d["message"]]
        check(errs and errs[0]["severity"] == "error", r)
        check((errs[0]["line"], errs[0]["column"]) == (3, line.index("undefined_name") + 1), errs)
        check(errs[0]["endColumn"] - errs[0]["column"] == len("undefined_name"), errs)


def test_preambles_stay_in_the_servers_own_tmpdir_and_go_with_it():
    """clangd keeps a file's precompiled preamble in TMPDIR, several MB, and leaves it there when it
    is killed: under Hermes that is a directory of its own, removed when the server ends."""
    tmp = os.path.realpath(tempfile.mkdtemp(prefix="hermes-clangd-tmpdir-test."))
    ws = os.path.realpath(tempfile.mkdtemp(prefix="hermes-clangd-small."))
    try:
        with open(os.path.join(ws, "main.c"), "w") as f:
            f.write("#include <stdio.h>\nint add(int a, int b) { return a + b; }\n"
                    "int main(void) { printf(\"%d\\n\", add(1, 2)); return 0; }\n")
        with open(os.path.join(ws, "compile_commands.json"), "w") as f:
            json.dump([{"directory": ws, "file": "main.c", "arguments": ["cc", "-c", "main.c"]}], f)
        with Server(cwd=ws, env=dict(os.environ, TMPDIR=tmp)) as s:
            call(s, "code.diagnostics", {"path": "main.c"})
            r = call(s, "code.definition", {"path": "main.c", "line": 3, "column": 35})
            check(r["definitions"][0]["line"] == 2, r)
            own = [d for d in os.listdir(tmp) if d.startswith("hermes-tmp-%d-" % s.proc.pid)]
            check(len(own) == 1 and sorted(os.listdir(tmp)) == own, os.listdir(tmp))
            check(any(f.startswith("preamble-") for f in os.listdir(os.path.join(tmp, own[0]))),
                  "no preamble in %s" % os.listdir(os.path.join(tmp, own[0])))
            s.close_stdin()
            check(s.proc.wait(30) == 0, "hermes exits")
            check(os.listdir(tmp) == [], "left in TMPDIR: %s" % os.listdir(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(ws, ignore_errors=True)


def test_rename_across_files_all_or_nothing_and_the_copy_still_compiles():
    ws = make_workspace()
    try:
        old = "hermes_verbs_open_regular"
        new = "hermes_verbs_open_file"
        with Server(cwd=ws) as s:
            before = {}
            for dirpath, _, files in os.walk(os.path.join(ws, "src")):
                for f in files:
                    p = os.path.join(dirpath, f)
                    before[os.path.relpath(p, ws)] = open(p, encoding="utf-8").read()
            users = sorted(rel for rel, text in before.items() if old in text)
            check(len(users) >= 3, users)
            args = {"path": "src/verbs/handlers.h", "namePath": old, "newName": new}
            r = call(s, "code.rename", dict(args, dryRun=True))
            check(sorted(f["path"] for f in r["files"]) == users, (r, users))
            check(all(f["version"] is None and "+" in f["diff"] for f in r["files"]), r)
            for rel in users:
                check(open(os.path.join(ws, rel)).read() == before[rel], "dry run wrote " + rel)
            r = call(s, "code.rename", args)
            check(sorted(f["path"] for f in r["files"]) == users, r)
            for f in r["files"]:
                text = open(os.path.join(ws, f["path"]), encoding="utf-8").read()
                check(old not in text and text == before[f["path"]].replace(old, new), f["path"])
                check(f["edits"] == before[f["path"]].count(old) and f["version"], f)
            # The copy still compiles: each changed file with its compile command.
            for rel in users:
                if rel.endswith(".c"):
                    p = subprocess.run(["cc", "-fsyntax-only", "-DHAVE_CONFIG_H", "-Ibuild", "-I.",
                                        "-Ibuild/include", "-Iinclude", "-Ibuild/src", "-Isrc",
                                        rel], cwd=ws, stderr=subprocess.PIPE)
                    check(p.returncode == 0, (rel, p.stderr))
            # The server sees the renamed text: references of the new name are the same places.
            r = call(s, "code.references", {"path": "src/verbs/handlers.h", "namePath": new})
            check(sorted({x["path"] for x in r["references"]}) == users, r)
            # No symbol there: the server's refusal, nothing written.
            r = expect_result(s.call("code.rename", {"path": "src/verbs/handlers.h", "line": 1,
                                                     "column": 1, "newName": "x"}, timeout=60))
            check(r["succeeded"] is False and r["errorCode"] in ("InvalidArgument", "NotFound"), r)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


if __name__ == "__main__":
    if not CLANGD:
        print("SKIP: clangd is not installed (apt-get install clangd)")
        sys.exit(77)
    WS = make_workspace()
    try:
        run_tests(globals(), per_test_timeout=300)
    finally:
        shutil.rmtree(WS, ignore_errors=True)
