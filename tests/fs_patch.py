# tests/fs_patch.py: fs.applyPatch end to end through `hermes exec` and `hermes serve`: each of the
# three formats byte for byte, a multi-file patch with an add, a delete, an update and a move, a
# patch failing on its last file changing nothing, a stale expectedVersions entry (Conflict,
# nothing written), and 64 concurrent patches over overlapping files (none lost, no deadlock).
import json
import os
import subprocess

from server_lib import HERMES, Server, check, expect_result, frame, run_tests, temp_dir


def exec_verb(root, verb, args):
    """One envelope through `hermes exec` in root; the parsed result."""
    p = subprocess.run([HERMES, "exec", "--root", root], input=json.dumps(
        {"verb": verb, "arguments": args}).encode(), capture_output=True, timeout=30)
    return json.loads(p.stdout.decode())


def put(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def get(root, rel):
    with open(os.path.join(root, rel), "rb") as f:
        return f.read().decode()


def snapshot(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if "/.hermes" in p or n == ".stderr":
                continue
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


def test_each_format_through_exec():
    root = temp_dir("hermes-patch-test.")
    put(root, "a.py", "def f():\n\treturn 1\n\n\ndef g():\n\treturn 2\n")
    r = exec_verb(root, "fs.applyPatch", {"patch":
        "*** Begin Patch\n*** Update File: a.py\n@@ def g():\n-    return 2\n+    return 3\n"
        "*** End Patch\n"})
    check(r["succeeded"], "apply_patch: %r" % r)
    check(get(root, "a.py") == "def f():\n\treturn 1\n\n\ndef g():\n\treturn 3\n", get(root, "a.py"))
    check(r["files"][0]["tolerances"] == ["indentation"], r)
    put(root, "w.txt", "one\r\ntwo\r\nthree")
    r = exec_verb(root, "fs.applyPatch", {"format": "unified", "patch":
        "--- w.txt\n+++ w.txt\n@@ -2,2 +2,2 @@\n two\n-three\n\\ No newline at end of file\n+3\n"
        "\\ No newline at end of file\n"})
    check(r["succeeded"], "unified: %r" % r)
    check(get(root, "w.txt") == "one\r\ntwo\r\n3", repr(get(root, "w.txt")))
    r = exec_verb(root, "fs.applyPatch", {"patch":
        "Change this:\n\nw.txt\n```\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n```\n"})
    check(r["succeeded"] and r["format"] == "search_replace", "search_replace: %r" % r)
    check(get(root, "w.txt") == "ONE\r\ntwo\r\n3", repr(get(root, "w.txt")))
    # nothing matches: the message shows the closest lines
    r = exec_verb(root, "fs.applyPatch", {"patch": "w.txt\n<<<<<<< SEARCH\nTWO\n3\n=======\nx\n"
                                          ">>>>>>> REPLACE\n"})
    check(not r["succeeded"] and "closest place is lines 2-3" in r["errorMessage"], r)


def test_multi_file_through_serve():
    with Server() as s:
        s.write_file("keep.txt", "alpha\nbeta\ngamma\n")
        s.write_file("old/name.txt", "move\nme\n")
        s.write_file("gone.txt", "bye\n")
        r = expect_result(s.call("fs.applyPatch", {"patch":
            "diff --git a/keep.txt b/keep.txt\n--- a/keep.txt\n+++ b/keep.txt\n@@ -1,3 +1,3 @@\n"
            " alpha\n-beta\n+BETA\n gamma\n"
            "diff --git a/old/name.txt b/new/name.txt\nsimilarity index 50%\nrename from old/name.txt\n"
            "rename to new/name.txt\n--- a/old/name.txt\n+++ b/new/name.txt\n@@ -1,2 +1,2 @@\n move\n-me\n+you\n"
            "diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n"
            "@@ -1 +0,0 @@\n-bye\n"
            "diff --git a/made.txt b/made.txt\nnew file mode 100644\n--- /dev/null\n+++ b/made.txt\n"
            "@@ -0,0 +1 @@\n+hi\n"}))
        check(r["succeeded"], r)
        check([f["action"] for f in r["files"]] == ["update", "move", "delete", "add"], r)
        check(get(s.root, "keep.txt") == "alpha\nBETA\ngamma\n", "keep.txt")
        check(get(s.root, "new/name.txt") == "move\nyou\n", "moved")
        check(not os.path.exists(os.path.join(s.root, "old/name.txt")), "old name left")
        check(not os.path.exists(os.path.join(s.root, "gone.txt")), "deleted file left")
        check(get(s.root, "made.txt") == "hi\n", "added")
        check(r["files"][1]["movedTo"] == "new/name.txt" and r["files"][1]["version"], r)


def test_failing_last_file_changes_nothing():
    with Server() as s:
        s.write_file("a.txt", "a\n")
        s.write_file("b.txt", "b\n")
        s.write_file("c.txt", "c\n")
        before = snapshot(s.root)
        r = expect_result(s.call("fs.applyPatch", {"patch":
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n"
            "*** Add File: d.txt\n+d\n*** Update File: c.txt\n*** Move to: e.txt\n@@\n-zzz\n+c\n"
            "*** End Patch\n"}))
        check(not r["succeeded"] and r["errorCode"] == "InvalidArgument", r)
        check("c.txt" in r["errorMessage"], r)
        check(snapshot(s.root) == before, "files changed: %r" % snapshot(s.root))
        # a stale expected version: Conflict, nothing written
        v = expect_result(s.call("fs.stat", {"path": "a.txt"}))["version"]
        s.write_file("a.txt", "a\n")  # a new inode: a new version
        before = snapshot(s.root)
        r = expect_result(s.call("fs.applyPatch", {
            "patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: b.txt\n"
                     "*** End Patch\n",
            "expectedVersions": [{"path": "a.txt", "version": v}]}))
        check(not r["succeeded"] and r["errorCode"] == "Conflict", r)
        check(snapshot(s.root) == before, "files changed after Conflict")


def test_concurrent_overlapping_patches():
    n = 64
    with Server() as s:
        names = ["f%d.txt" % k for k in range(4)]
        for name in names:
            s.write_file(name, "head\n")
        data = b""
        for i in range(n):
            a, b = names[i % 4], names[(i + 1 + i // 4) % 4]
            if a == b:
                b = names[(i + 2) % 4]
            patch = ("*** Begin Patch\n*** Update File: %s\n@@\n+line %d\n*** Update File: %s\n"
                     "@@\n+line %d\n*** End Patch\n" % (a, i, b, i))
            data += frame({"jsonrpc": "2.0", "id": i, "method": "fs.applyPatch",
                           "params": {"patch": patch}}, s.framing)
        s.send_raw(data)
        for _ in range(n):
            r = s.recv(60)
            check(r["result"]["succeeded"], r)
        total = 0
        for name in names:
            lines = get(s.root, name).split("\n")
            check(lines[0] == "head", name)
            total += len([l for l in lines if l.startswith("line ")])
        check(total == 2 * n, "%d of %d lines landed" % (total, 2 * n))


if __name__ == "__main__":
    run_tests(globals(), per_test_timeout=120)
