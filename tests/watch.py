# tests/watch.py: fs.watch, fs.changes and fs.unwatch through the real hermes serve (and one
# hermes exec batch): events for create, modify (a burst is one), delete, rename (one moved event),
# a directory created and filled at once, ignored and hidden paths left out, reading again from a
# cursor, overflow past --max-watch-events, the kernel's queue overflowing while fs.changes is not
# called (reported as overflow; directories made meanwhile watched after it), the --max-watches
# bound, a waiting fs.changes woken by a change, ended by fs.unwatch, and cancelled.
import json
import re
import os
import shutil
import subprocess
import tempfile
import time

from server_lib import HERMES, Server, check, expect_error, expect_result, run_tests


def ok(reply):
    r = expect_result(reply)
    check(r.get("succeeded") is True, "failed: %r" % (r,))
    return r


def failed(reply, code):
    r = expect_result(reply)
    check(r.get("succeeded") is False and r.get("errorCode") == code, "expected %s, got %r" % (code, r))
    return r


def changes(s, handle, cursor):
    """All events from cursor until none come for 0.3 s (the kernel delivers them at once; a
    short wait for the last one): (events, overflow, the next cursor)."""
    events, overflow = [], False
    while True:
        r = ok(s.call("fs.changes", {"handle": handle, "cursor": cursor}))
        if not r["events"] and not r["overflow"]:
            time.sleep(0.3)
            r = ok(s.call("fs.changes", {"handle": handle, "cursor": cursor}))
            if not r["events"] and not r["overflow"]:
                return events, overflow, r["cursor"]
        events += r["events"]
        overflow |= r["overflow"]
        cursor = r["cursor"]


def simple(events):
    return [(e["kind"], e["path"], e["oldPath"], e["isDirectory"]) for e in events]


def test_events():
    with Server() as s:
        root = s.root
        with open(os.path.join(root, ".gitignore"), "w") as f:
            f.write("build/\n*.log\n")
        os.mkdir(os.path.join(root, "src"))
        os.mkdir(os.path.join(root, "build"))
        with open(os.path.join(root, "src", "old.c"), "w") as f:
            f.write("x")
        h = ok(s.call("fs.watch", {"path": "."}))["handle"]
        check(re.match(r"^[a-z0-9-]+\.w1-[0-9a-f]{6}$", h), "handle " + h)

        with open(os.path.join(root, "src", "a.c"), "w") as f:
            f.write("one")
        for i in range(50):  # a burst of writes: one event
            with open(os.path.join(root, "src", "a.c"), "a") as f:
                f.write("more %d\n" % i)
        with open(os.path.join(root, "build", "out.o"), "w") as f:  # ignored directory
            f.write("o")
        with open(os.path.join(root, "x.log"), "w") as f:  # ignored name
            f.write("l")
        with open(os.path.join(root, ".hidden"), "w") as f:  # hidden
            f.write("h")
        os.rename(os.path.join(root, "src", "old.c"), os.path.join(root, "src", "new.c"))
        os.unlink(os.path.join(root, "src", "a.c"))
        ev, overflow, cursor = changes(s, h, 0)
        got = simple(ev)
        check(not overflow, "overflow")
        check(got == [("created", "src/a.c", None, False),
                      ("moved", "src/new.c", "src/old.c", False),
                      ("deleted", "src/a.c", None, False)], "events: %r" % (got,))

        # Reading again from a cursor still kept returns the same events.
        again = ok(s.call("fs.changes", {"handle": h, "cursor": 0, "maxEvents": 1000}))
        check(simple(again["events"]) == got and again["cursor"] == cursor, "re-read: %r" % (again,))
        part = ok(s.call("fs.changes", {"handle": h, "cursor": 0, "maxEvents": 2}))
        check(simple(part["events"]) == got[:2] and part["more"], "maxEvents 2: %r" % (part,))
        failed(s.call("fs.changes", {"handle": h, "cursor": cursor + 100}), "InvalidArgument")

        # A modification of a file that existed, and a save through a temporary file.
        with open(os.path.join(root, "src", "new.c"), "a") as f:
            f.write("y")
        ok(s.call("fs.writeFile", {"path": "src/new.c", "content": "saved\n"}))
        ev, _, cursor = changes(s, h, cursor)
        check(simple(ev) == [("modified", "src/new.c", None, False)], "modify + save: %r" % (simple(ev),))

        # A directory created and filled at once: every file in it is reported.
        tmp = os.path.join(root, ".stage")
        os.makedirs(os.path.join(tmp, "deep", "er"))
        names = ["deep/f%d" % i for i in range(20)] + ["deep/er/g%d" % i for i in range(5)]
        for n in names:
            with open(os.path.join(tmp, n), "w") as f:
                f.write(n)
        os.rename(tmp, os.path.join(root, "pkg"))  # from a hidden name: appears whole at once
        os.makedirs(os.path.join(root, "made", "sub"))
        for i in range(10):
            with open(os.path.join(root, "made", "sub", "m%d" % i), "w") as f:
                f.write("m")
        ev, overflow, cursor = changes(s, h, cursor)
        paths = {e["path"] for e in ev if e["kind"] in ("created", "modified")}
        want = {"pkg", "pkg/deep", "pkg/deep/er"} | {"pkg/" + n for n in names} | \
            {"made", "made/sub"} | {"made/sub/m%d" % i for i in range(10)}
        check(want <= paths, "missing from a directory filled at once: %r" % sorted(want - paths))
        check(not overflow, "overflow on a filled directory")
        # A directory renamed: its files' later events carry the new path.
        os.rename(os.path.join(root, "made"), os.path.join(root, "moved"))
        with open(os.path.join(root, "moved", "sub", "m0"), "a") as f:
            f.write("z")
        ev, _, cursor = changes(s, h, cursor)
        check(simple(ev) == [("moved", "moved", "made", True), ("modified", "moved/sub/m0", None, False)],
              "directory renamed: %r" % (simple(ev),))
        shutil.rmtree(os.path.join(root, "moved"))
        ev, _, cursor = changes(s, h, cursor)
        check(("deleted", "moved", None, True) in simple(ev) and
              ("deleted", "moved/sub/m0", None, False) in simple(ev), "rmtree: %r" % (simple(ev),))

        ok(s.call("fs.unwatch", {"handle": h}))
        failed(s.call("fs.changes", {"handle": h}), "NotFound")
        failed(s.call("fs.unwatch", {"handle": h}), "NotFound")


def test_overflow_and_limits():
    with Server(args=["--max-watch-events=16", "--max-watches=2"]) as s:
        h = ok(s.call("fs.watch", {}))["handle"]
        for i in range(100):
            with open(os.path.join(s.root, "f%d" % i), "w") as f:
                f.write("x")
        r = ok(s.call("fs.changes", {"handle": h, "cursor": 0, "maxEvents": 1000}))
        check(r["overflow"], "100 files past 16 kept: no overflow: %r" % (r,))
        check(len(r["events"]) <= 16 and r["events"][-1]["path"] == "f99", "the newest kept: %r" % r["events"][-1:])
        r2 = ok(s.call("fs.changes", {"handle": h}))
        check(r2["events"] == [] and not r2["overflow"], "after it: %r" % (r2,))
        ok(s.call("fs.watch", {}))
        failed(s.call("fs.watch", {}), "LimitReached")
        ok(s.call("fs.unwatch", {"handle": h}))
        ok(s.call("fs.watch", {}))
        failed(s.call("fs.watch", {"path": "f1"}), "NotADirectory")
        failed(s.call("fs.watch", {"path": "nope"}), "NotFound")
        failed(s.call("fs.watch", {"path": ".."}), "OutsideWorkspace")


def test_kernel_queue_overflow():
    """More changes than fs.inotify.max_queued_events while nobody calls fs.changes (the events
    are read from the kernel only then): the kernel drops them (IN_Q_OVERFLOW); fs.changes says
    overflow (rescan needed), never a silent loss, and what changes afterwards is reported, in
    directories made while events were lost too."""
    try:
        with open("/proc/sys/fs/inotify/max_queued_events") as f:
            q = int(f.read())
    except (OSError, ValueError):
        return "skip"
    if q > 200000:
        print("SKIP (part): fs.inotify.max_queued_events is %d: too many files to make" % q)
        return "skip"
    with Server(args=["--max-watch-events=%d" % min(1000000, 3 * q)]) as s:
        h = ok(s.call("fs.watch", {}))["handle"]
        files = q // 2 + 500  # a create and a close-write each
        for i in range(files):
            open(os.path.join(s.root, "f%06d" % i), "w").close()
        os.makedirs(os.path.join(s.root, "late", "deeper"))  # lost from the full queue
        cursor, overflow, n = 0, False, 0
        while True:
            r = ok(s.call("fs.changes", {"handle": h, "cursor": cursor, "maxEvents": 10000}))
            overflow |= r["overflow"]
            n += len(r["events"])
            cursor = r["cursor"]
            if not r["events"] and not r["overflow"]:
                break
        check(overflow, "%d files made with a kernel queue of %d: no overflow (%d events)" % (files, q, n))
        check(n < files, "%d events for %d files: the kernel lost none?" % (n, files))
        with open(os.path.join(s.root, "late", "deeper", "x.txt"), "w") as f:
            f.write("x")
        ev, overflow, _ = changes(s, h, cursor)
        check(("created", "late/deeper/x.txt", None, False) in simple(ev) and not overflow, simple(ev))


def test_wait_wakes_unwatch_and_cancel():
    with Server() as s:
        h = ok(s.call("fs.watch", {}))["handle"]
        waiting = s.request("fs.changes", {"handle": h, "waitSeconds": 30}, id="w1")
        time.sleep(0.3)
        t0 = time.monotonic()
        with open(os.path.join(s.root, "late.txt"), "w") as f:
            f.write("x")
        r = ok(s.reply_to(waiting, 10))
        check(time.monotonic() - t0 < 1, "woken after %.2f s" % (time.monotonic() - t0))
        check(simple(r["events"])[:1] == [("created", "late.txt", None, False)], repr(r))
        # the write's close may come just after the wake: take it, so that the next wait is idle
        ok(s.call("fs.changes", {"handle": h, "waitSeconds": 1}))

        waiting = s.request("fs.changes", {"handle": h, "waitSeconds": 30}, id="w2")
        time.sleep(0.3)
        t0 = time.monotonic()
        s.notify("$/cancelRequest", {"id": "w2"})
        e = expect_error(s.reply_to(waiting, 10), -32800, "w2")
        check(e["data"]["result"]["errorCode"] == "Cancelled", e)
        check(time.monotonic() - t0 < 2, "cancel took %.2f s" % (time.monotonic() - t0))

        waiting = s.request("fs.changes", {"handle": h, "waitSeconds": 30}, id="w3")
        time.sleep(0.3)
        t0 = time.monotonic()
        ok(s.call("fs.unwatch", {"handle": h}))
        failed(s.reply_to(waiting, 10), "NotFound")
        check(time.monotonic() - t0 < 2, "unwatch woke the waiter after %.2f s" % (time.monotonic() - t0))
        # Without a change, the wait ends at waitSeconds with no events.
        h = ok(s.call("fs.watch", {}))["handle"]
        t0 = time.monotonic()
        r = ok(s.call("fs.changes", {"handle": h, "waitSeconds": 1}))
        check(r["events"] == [] and 0.9 < time.monotonic() - t0 < 3, "timed wait: %r" % (r,))


def test_64_waiting_on_one_watch():
    with Server() as s:
        h = ok(s.call("fs.watch", {}))["handle"]
        ids = [s.request("fs.changes", {"handle": h, "cursor": 0, "waitSeconds": 30}) for _ in range(64)]
        time.sleep(0.5)
        with open(os.path.join(s.root, "one.txt"), "w") as f:
            f.write("x")
        for id in ids:
            r = ok(s.reply_to(id, 20))
            check(simple(r["events"])[:1] == [("created", "one.txt", None, False)], repr(r))


def test_exec_batch():
    with tempfile.TemporaryDirectory(prefix="hermes-watch.") as root:
        env = [{"verb": "fs.watch", "arguments": {"recursive": False}},
               {"verb": "fs.writeFile", "arguments": {"path": "a.txt", "content": "x"}},
               {"verb": "fs.writeFile", "arguments": {"path": "sub/b.txt", "content": "x"}},
               {"verb": "fs.changes", "arguments": {"handle": "w1-000000"}}]
        p = subprocess.run([HERMES, "exec", "--root", root], input="\n".join(map(json.dumps, env)),
                           capture_output=True, text=True, timeout=30)
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        check(lines[0]["succeeded"] and re.match(r"^[a-z0-9-]+\.w1-", lines[0]["handle"]), repr(lines[0]))
        check(lines[3]["errorCode"] == "NotFound", "a made-up handle: %r" % lines[3])
        env[3]["arguments"]["handle"] = lines[0]["handle"]  # the tag is random: run again with it
        # A second process has other handles: the first one's is unknown to it.
        p = subprocess.run([HERMES, "exec", "--root", root], input=json.dumps(env[3]),
                           capture_output=True, text=True, timeout=30)
        check(json.loads(p.stdout)["errorCode"] == "NotFound", p.stdout)


run_tests(globals())
