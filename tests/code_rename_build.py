# tests/code_rename_build.py: a rename that builds. code.rename, with the real clangd (Debian's),
# renames a function used across files of Hermes' own tree in a copy of the source and build
# trees; then the copy's own `make` rebuilds what changed and links `hermes` and the unit tests of
# the verbs that call the function, and those tests pass with the renamed binary. The copy keeps
# the build's objects and times, so only the changed files are compiled again. Skipped (77),
# saying so, where clangd or make is missing or the build tree is not a configured one.
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

from lsp_direct import succeeded
from server_lib import Server, check, expect_result, run_tests

CLANGD = shutil.which("clangd")
MAKE = os.environ.get("MAKE") or shutil.which("make")
SRC = os.path.realpath(os.environ.get("top_srcdir", ".."))
BUILD = os.path.realpath(os.environ.get("top_builddir", "."))
OLD = "hermes_verbs_open_regular"
NEW = "hermes_verbs_open_file"
# The unit tests of the verbs that call it (fs.readFile, fs.readRange and the others of fs_read.c).
UNIT_TESTS = ["tests/check_verbs_read"]


def copy_trees(dst):
    """Copies the directory holding both trees (the source tree, with the build inside or beside
    it) to dst, times kept; other build and install directories beside them, version control and
    caches are left out. Returns the copies' (source, build) paths, both writable (a release's
    source tree is read-only under distcheck)."""
    root = os.path.commonpath([SRC, BUILD])
    wanted = (SRC, BUILD)

    def ignore(d, names):
        out = set()
        for n in names:
            p = os.path.join(d, n)
            if n in (".git", "autom4te.cache", "node_modules", ".mcp"):
                out.add(n)
            elif (n.startswith("_") and os.path.isdir(p) and
                  not any(w == p or w.startswith(p + os.sep) or p.startswith(w + os.sep)
                          for w in wanted)):
                out.add(n)  # another build (_asan, _fuzz) or distcheck's _inst
        return out

    shutil.copytree(root, dst, symlinks=True, ignore=ignore)
    for dirpath, dirs, files in os.walk(dst):
        for n in dirs + files:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                st = os.lstat(p)
                os.chmod(p, stat.S_IMODE(st.st_mode) | stat.S_IWUSR)
        os.chmod(dirpath, stat.S_IMODE(os.lstat(dirpath).st_mode) | stat.S_IWUSR)
    return (os.path.join(dst, os.path.relpath(SRC, root)),
            os.path.join(dst, os.path.relpath(BUILD, root)))


def compile_commands(src, build):
    cmds = []
    for dirpath, _, files in os.walk(os.path.join(src, "src")):
        for f in sorted(files):
            if f.endswith(".c"):
                rel = os.path.relpath(os.path.join(dirpath, f), src)
                cmds.append({"directory": src, "file": rel, "arguments": [
                    "cc", "-DHAVE_CONFIG_H", "-I" + build, "-I" + src, "-I" + build + "/include",
                    "-I" + src + "/include", "-I" + build + "/src", "-I" + src + "/src", "-c", rel]})
    with open(os.path.join(src, "compile_commands.json"), "w") as out:
        json.dump(cmds, out)


def make_env():
    """The environment of a make of its own: not a part of the make that runs this test (its
    MAKEFLAGS carry that run's TESTS and its jobserver)."""
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "GNUMAKEFLAGS"):
        env.pop(k, None)
    return env


def symbols(binary):
    p = subprocess.run(["nm", binary], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return {line.split()[-1] for line in p.stdout.splitlines() if line.strip()}


def test_a_rename_across_files_builds_and_its_tests_pass():
    tmp = tempfile.mkdtemp(prefix="hermes-rename-build.")
    try:
        src, build = copy_trees(os.path.join(tmp, "tree"))
        compile_commands(src, build)
        before = {}
        for dirpath, _, files in os.walk(os.path.join(src, "src")):
            for f in files:
                if f.endswith((".c", ".h")):
                    p = os.path.join(dirpath, f)
                    with open(p, encoding="utf-8") as fh:
                        before[os.path.relpath(p, src)] = fh.read()
        users = sorted(rel for rel, text in before.items() if OLD in text)
        check(len(users) >= 4, users)

        with Server(cwd=src) as s:
            r = succeeded(expect_result(s.call("code.rename", {
                "path": "src/verbs/handlers.h", "namePath": OLD, "newName": NEW}, timeout=240)))
        check(sorted(f["path"] for f in r["files"]) == users, (r, users))
        for rel in users:
            with open(os.path.join(src, rel), encoding="utf-8") as fh:
                check(fh.read() == before[rel].replace(OLD, NEW), rel)

        # The copy's own build: only the renamed files are compiled again.
        env = make_env()
        targets = ["hermes"] + UNIT_TESTS
        p = subprocess.run([MAKE, "-C", build, "-j2"] + targets, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        check(p.returncode == 0, p.stdout[-4000:])
        compiled = [line for line in p.stdout.splitlines() if " -c " in line or "CC " in line]
        check(compiled, "nothing was compiled again:\n" + p.stdout[-2000:])
        print("compiled again:", len(compiled), compiled[:8])
        for binary in targets:
            names = symbols(os.path.join(build, binary))
            if names:  # not stripped: the renamed function is what the binary holds
                check(NEW in names and OLD not in names, binary)

        # Its tests pass: the unit tests, and the binary through a real envelope.
        for t in UNIT_TESTS:
            p = subprocess.run([os.path.join(build, t)], cwd=build, env=dict(env, CK_DEFAULT_TIMEOUT="120"),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=600)
            check(p.returncode == 0, (t, p.stdout[-4000:]))
            check("100%" in p.stdout, (t, p.stdout[-2000:]))
        with open(os.path.join(src, "src", "verbs", "fs_read.c"), encoding="utf-8") as fh:
            want = fh.read()
        p = subprocess.run([os.path.join(build, "hermes"), "exec", "--root=" + src, "-"],
                           input=json.dumps({"verb": "fs.readFile",
                                             "arguments": {"path": "src/verbs/fs_read.c"}}),
                           cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
        check(p.returncode == 0, (p.returncode, p.stderr))
        out = json.loads(p.stdout)
        check(out.get("succeeded", True) is True and out.get("content") == want, p.stdout[:500])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    if not CLANGD:
        print("SKIP: clangd is not installed (apt-get install clangd)")
        sys.exit(77)
    if not MAKE or not shutil.which("nm"):
        print("SKIP: make or nm is not installed")
        sys.exit(77)
    if not os.path.exists(os.path.join(BUILD, "Makefile")) or \
            not os.path.exists(os.path.join(BUILD, "config.status")):
        print("SKIP: %s is not a configured build tree" % BUILD)
        sys.exit(77)
    run_tests(globals(), per_test_timeout=1500)
