# tests/server_concurrency.py: requests in flight at once in hermes serve: a burst of a thousand
# with every reply matched to its id, out-of-order completion (a slow proc.run overtaken by quick
# requests), and cancellation of queued and running work.
import json
import time

from server_lib import (Server, both_framings, check, expect_error, expect_result, frame,
                        has_verb, run_tests, started_then)

PROC = has_verb("proc.run")


@both_framings
def test_burst_of_a_thousand(framing):
    with Server(framing) as s:
        for i in range(5):
            s.write_file("c%d.txt" % i, "content %d\n" % i)
        for i in range(0, 7, 2):
            s.write_file("e%d" % i, "")
        expect_result(s.call("initialize", {}))
        expected = {}
        data = b""
        for i in range(1000):
            id = i if i % 2 else "s-%d" % i
            if i % 3 == 0:
                msg = {"jsonrpc": "2.0", "id": id, "method": "fs.readFile", "params": {"path": "c%d.txt" % (i % 5)}}
                expected[json.dumps(id)] = ("content", "content %d\n" % (i % 5))
            elif i % 3 == 1:
                msg = {"jsonrpc": "2.0", "id": id, "method": "fs.exists", "params": {"path": "e%d" % (i % 7)}}
                expected[json.dumps(id)] = ("exists", (i % 7) % 2 == 0)
            else:
                msg = {"jsonrpc": "2.0", "id": id, "method": "hermes/execute",
                       "params": {"verb": "fs.exists", "arguments": {"path": "c%d.txt" % (i % 9)}}}
                expected[json.dumps(id)] = ("exists", i % 9 < 5)
            data += frame(msg, framing)
        t0 = time.monotonic()
        s.send_raw(data)
        seen = set()
        for _ in range(1000):
            r = s.recv(20)
            key = json.dumps(r["id"])
            check(key in expected, "unknown id %s" % key)
            check(key not in seen, "id %s answered twice" % key)
            seen.add(key)
            field, value = expected[key]
            check(expect_result(r)[field] == value, "id %s: %r" % (key, r))
        check(len(seen) == 1000, "all answered")
        s.expect_silence(0.2)
        print("  1000 requests answered in %.3f s" % (time.monotonic() - t0))


@both_framings
def test_slow_proc_run_is_overtaken(framing):
    if not PROC:
        return "skip"
    # one worker only: the quick requests must still not wait for the slow one
    with Server(framing, args=["--jobs", "1"]) as s:
        slow = s.request("proc.run", {"executable": "sleep", "arguments": ["2"]})
        time.sleep(0.1)
        t0 = time.monotonic()
        quick = [s.request("fs.exists", {"path": "x"}) for _ in range(20)]
        order = []
        for _ in range(21):
            r = s.recv(10)
            order.append(r["id"])
            if r["id"] == quick[-1]:
                check(time.monotonic() - t0 < 1.5, "quick requests took %.2f s" % (time.monotonic() - t0))
        check(order[-1] == slow and sorted(order[:-1]) == quick, order)


@both_framings
def test_instant_verbs_one_at_a_time(framing):
    # fs.exists, fs.stat and sys.machineInfo sent alone run on the reader thread (the instant
    # trait) and are written from there; with a LONG verb in flight, or several together, they
    # go to the workers. Every reply must still be there, right, and in its framing.
    with Server(framing) as s:
        s.write_file("here.txt", "x")
        slow = s.request("proc.run", started_then(1)) if PROC else None
        if PROC:
            s.wait_for_file("started")
        for i in range(300):
            if i == 150 and PROC:
                r = s.reply_to(slow, 10)
                check(r["result"]["exitCode"] == 0, r)
            path = "here.txt" if i % 2 == 0 else "missing"
            r = expect_result(s.call("fs.exists", {"path": path}))
            check(r["exists"] is (i % 2 == 0), (i, r))
            if i % 50 == 0:
                check(expect_result(s.call("fs.stat", {"path": "here.txt"}))["size"] == 1, i)
                check(expect_result(s.call("sys.machineInfo", {}))["succeeded"] is True, i)
        # several in one write: the workers answer them all
        ids = list(range(1000, 1020))
        s.send_raw(b"".join(frame({"jsonrpc": "2.0", "id": i, "method": "fs.exists",
                                   "params": {"path": "here.txt"}}, framing) for i in ids))
        for i in ids:
            check(expect_result(s.reply_to(i, 10))["exists"] is True, i)


def test_cancel_running_proc_run():
    if not PROC:
        return "skip"
    with Server() as s:
        slow = s.request("proc.run", started_then(30), id="slow")
        s.wait_for_file("started")
        t0 = time.monotonic()
        s.notify("$/cancelRequest", {"id": "slow"})
        e = expect_error(s.reply_to(slow, 10), -32800, "slow")
        check(time.monotonic() - t0 < 3, "cancel took %.2f s" % (time.monotonic() - t0))
        check(e["data"]["result"]["errorCode"] == "Cancelled", e)
        # the server is fine afterwards
        expect_result(s.call("fs.exists", {"path": "x"}))


def test_cancel_queued_work_never_runs():
    if not PROC:
        return "skip"
    # --jobs 1: at most 1 + 64 proc.run at once, so the last of 70 wait in the queue
    with Server(args=["--jobs", "1"]) as s:
        ids = [s.request("proc.run", {"executable": "sleep", "arguments": ["30"]}) for _ in range(70)]
        marker = s.request("proc.run", {"executable": "touch", "arguments": ["ran.txt"]})
        time.sleep(1.0)
        t0 = time.monotonic()
        s.notify("$/cancelRequest", {"id": marker})
        e = expect_error(s.reply_to(marker, 5), -32800, marker)
        check(time.monotonic() - t0 < 2, "queued cancel took %.2f s" % (time.monotonic() - t0))
        check("data" not in e, "a queued request never ran: %r" % e)
        check(expect_result(s.call("fs.exists", {"path": "ran.txt"}))["exists"] is False, "it ran")
        # cancel the rest (running and queued), with the id written differently (7 == 7.0)
        for i in ids:
            s.send('{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":%s.0}}' % i)
        for i in ids:
            expect_error(s.reply_to(i, 10), -32800, i)
        check(time.monotonic() - t0 < 8, "cancelling 70 took %.2f s" % (time.monotonic() - t0))


def test_cancel_edge_cases():
    with Server() as s:
        # unknown id, finished id: nothing happens, no reply
        done = s.request("fs.exists", {"path": "x"})
        expect_result(s.reply_to(done))
        s.notify("$/cancelRequest", {"id": done})
        s.notify("$/cancelRequest", {"id": "never-sent"})
        s.expect_silence()
        # as a request it is answered with null
        r = s.call("$/cancelRequest", {"id": 12345})
        check(r["result"] is None, r)
        expect_error(s.call("$/cancelRequest", {"id": {"x": 1}}), -32602)
        expect_error(s.call("$/cancelRequest", [1]), -32602)


def test_reading_never_stops_while_workers_are_busy():
    if not PROC:
        return "skip"
    with Server(args=["--jobs", "1"]) as s:
        slow = [s.request("proc.run", {"executable": "sleep", "arguments": ["2"]}) for _ in range(4)]
        time.sleep(0.2)
        t0 = time.monotonic()
        r = s.call("hermes/verbs", timeout=5)
        check(time.monotonic() - t0 < 1, "hermes/verbs waited %.2f s" % (time.monotonic() - t0))
        for i in slow:
            expect_result(s.reply_to(i, 10))


run_tests(globals())
