# tests/concurrent_edits.py: read-modify-write verbs lose nothing under concurrency (issue 21):
# 64 fs.editFile or fs.writeRange requests at once on one file through hermes serve and hermes
# mcp, and two hermes exec processes editing alternate lines of one file: every reported success
# is in the file, every time. And expectedVersion: a write refused with Conflict writes nothing.
# HERMES_EDIT_ROUNDS sets how many times each is repeated (default 100).
import json
import os
import subprocess
import threading

from server_lib import HERMES, Server, check, expect_result, frame, run_tests

ROUNDS = int(os.environ.get("HERMES_EDIT_ROUNDS", "100"))
N = 64


def numbered(n):
    return "".join("line %d\n" % i for i in range(1, n + 1))


def burst(s, requests):
    """Sends every request in one write, returns the replies by id."""
    data = b""
    for i, (method, params) in enumerate(requests):
        data += frame({"jsonrpc": "2.0", "id": i, "method": method, "params": params}, s.framing)
    s.send_raw(data)
    replies = {}
    for _ in requests:
        r = s.recv(60)
        replies[r["id"]] = r
    return replies


def read(s, rel):
    with open(os.path.join(s.root, rel)) as f:
        return f.read()


def check_all_in(text, want, what):
    lines = text.splitlines()
    missing = [w for w in want if w not in lines]
    check(not missing, "%s: %d of %d changes lost, e.g. %r" % (what, len(missing), len(want),
                                                                missing[:3]))
    check(len(lines) == N, "%s: %d lines, not %d" % (what, len(lines), N))


def test_serve_edit_file():
    with Server() as s:
        for rnd in range(ROUNDS):
            s.write_file("f.txt", numbered(N))
            reqs = [("fs.editFile", {"path": "f.txt", "edits": [
                {"oldText": "line %d\n" % i, "newText": "edited %d\n" % i}]}) for i in range(1, N + 1)]
            replies = burst(s, reqs)
            for r in replies.values():
                expect_result(r)
            check_all_in(read(s, "f.txt"), ["edited %d" % i for i in range(1, N + 1)],
                         "round %d" % rnd)
        check(not [n for n in os.listdir(s.root) if n.endswith(".hermes-tmp")], "temporary files left")


def test_serve_write_range():
    with Server() as s:
        for rnd in range(ROUNDS):
            s.write_file("f.txt", numbered(N))
            reqs = [("fs.writeRange", {"path": "f.txt", "startLine": i, "endLine": i,
                                       "content": "written %d\n" % i}) for i in range(1, N + 1)]
            for r in burst(s, reqs).values():
                expect_result(r)
            check_all_in(read(s, "f.txt"), ["written %d" % i for i in range(1, N + 1)],
                         "round %d" % rnd)


def test_mcp_edit_file():
    with Server(command="mcp") as s:
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "concurrent_edits.py", "version": "1"}}))
        s.notify("notifications/initialized")
        for rnd in range(ROUNDS):
            s.write_file("f.txt", numbered(N))
            reqs = [("tools/call", {"name": "fs_editFile", "arguments": {"path": "f.txt", "edits": [
                {"oldText": "line %d\n" % i, "newText": "edited %d\n" % i}]}}) for i in range(1, N + 1)]
            for r in burst(s, reqs).values():
                res = expect_result(r)
                check(not res.get("isError"), res)
                check(res["structuredContent"]["version"], res)
            check_all_in(read(s, "f.txt"), ["edited %d" % i for i in range(1, N + 1)],
                         "mcp round %d" % rnd)


def test_two_exec_processes():
    with Server() as s:  # for its temporary root only
        for rnd in range(ROUNDS):
            s.write_file("f.txt", numbered(N))
            procs = []
            for parity in (0, 1):
                batch = "".join(json.dumps({"verb": "fs.editFile", "arguments": {"path": "f.txt", "edits": [
                    {"oldText": "line %d\n" % i, "newText": "exec %d\n" % i}]}}) + "\n"
                    for i in range(1 + parity, N + 1, 2))
                procs.append((subprocess.Popen([HERMES, "exec"], cwd=s.root, stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE), batch))
            outs = []
            threads = [threading.Thread(target=lambda p=p, b=b: outs.append(p.communicate(b.encode())[0]))
                       for p, b in procs]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            for p, _ in procs:
                check(p.returncode == 0, "hermes exec exited %s" % p.returncode)
            results = [json.loads(l) for o in outs for l in o.decode().splitlines() if l.strip()]
            check(len(results) == N and all(r["succeeded"] for r in results), results[:2])
            check_all_in(read(s, "f.txt"), ["exec %d" % i for i in range(1, N + 1)], "round %d" % rnd)


def test_expected_version():
    with Server() as s:
        s.write_file("v.txt", "one\ntwo\n")
        r = expect_result(s.call("fs.readFile", {"path": "v.txt"}))
        v1 = r["version"]
        check(expect_result(s.call("fs.stat", {"path": "v.txt"}))["version"] == v1, "stat's version")
        check(expect_result(s.call("fs.readRange", {"path": "v.txt", "startLine": 1,
                                                     "endLine": 1}))["version"] == v1, "readRange's")
        # the version it was read at: the write goes through, and gives the new version
        w = expect_result(s.call("fs.editFile", {"path": "v.txt", "expectedVersion": v1,
                                                 "edits": [{"oldText": "one", "newText": "ONE"}]}))
        v2 = w["version"]
        check(v2 != v1, "a write changes the version")
        check(expect_result(s.call("fs.stat", {"path": "v.txt"}))["version"] == v2, "stat after")
        # a stale version: Conflict, naming the path and both versions, and nothing written
        for method, params in [
                ("fs.editFile", {"edits": [{"oldText": "two", "newText": "TWO"}]}),
                ("fs.writeRange", {"startLine": 2, "endLine": 2, "content": "TWO\n"}),
                ("fs.writeFile", {"content": "gone\n"})]:
            params = dict(params, path="v.txt", expectedVersion=v1)
            r = expect_result(s.call(method, params))
            check(not r["succeeded"] and r["errorCode"] == "Conflict", (method, r))
            check("v.txt" in r["errorMessage"] and v1 in r["errorMessage"] and v2 in r["errorMessage"],
                  r["errorMessage"])
            check(read(s, "v.txt") == "ONE\ntwo\n", "%s wrote after a Conflict" % method)
        # a file written behind Hermes's back (in place, another size) is a new version
        with open(os.path.join(s.root, "v.txt"), "r+") as f:
            f.write("ONE\ntwo\nthree\n")
        r = expect_result(s.call("fs.writeRange", {"path": "v.txt", "startLine": 1, "endLine": 1,
                                                   "content": "x\n", "expectedVersion": v2}))
        check(r["errorCode"] == "Conflict", r)
        # a file that does not exist is at no version
        r = expect_result(s.call("fs.writeFile", {"path": "new.txt", "content": "x",
                                                  "expectedVersion": v2}))
        check(r["errorCode"] == "Conflict" and "absent" in r["errorMessage"], r)
        check(not os.path.exists(os.path.join(s.root, "new.txt")), "new.txt was created")


def test_conflict_through_mcp():
    with Server(command="mcp") as s:
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "concurrent_edits.py", "version": "1"}}))
        s.notify("notifications/initialized")
        s.write_file("m.txt", "a\n")
        r = expect_result(s.call("tools/call", {"name": "fs_readFile", "arguments": {"path": "m.txt"}}))
        v = r["structuredContent"]["version"]
        s.write_file("m.txt", "b\n")
        r = expect_result(s.call("tools/call", {"name": "fs_editFile", "arguments": {
            "path": "m.txt", "expectedVersion": v, "edits": [{"oldText": "b", "newText": "c"}]}}))
        check(r.get("isError") is True, r)
        check("Conflict" in json.dumps(r), r)
        check(read(s, "m.txt") == "b\n", "written after a Conflict")


if __name__ == "__main__":
    run_tests(globals(), per_test_timeout=600)
