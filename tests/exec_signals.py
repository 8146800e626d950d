# tests/exec_signals.py: SIGINT and SIGTERM to `hermes exec` while proc.run runs a program that
# ignores them and has started a descendant: Hermes ends as the signal says (no result, the
# shell sees the signal), and the run's supervisor, told by PR_SET_PDEATHSIG, ends the program's
# group and every descendant (SIGTERM, then SIGKILL after its grace); nothing else of the batch
# runs.
import os
import signal
import subprocess
import time

from server_lib import HERMES, check, run_tests, temp_dir, wait_gone

BATCH = """verb: proc.run
arguments: {executable: sh, arguments: ["-c", "trap '' TERM INT; sleep 300 & echo $! > bgpid; exec sleep 301"]}
---
verb: fs.writeFile
arguments: {path: after, content: x}
"""


def signal_exec(sig):
    root = temp_dir("hermes-exec-signal.")
    p = subprocess.Popen([HERMES, "exec", "--root=" + root], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    p.stdin.write(BATCH.encode())
    p.stdin.close()
    bgpid = os.path.join(root, "bgpid")
    t0 = time.monotonic()
    while not (os.path.exists(bgpid) and open(bgpid).read().strip()):
        check(time.monotonic() - t0 < 10, "the program did not start")
        time.sleep(0.02)
    bg = int(open(bgpid).read())
    p.send_signal(sig)
    out = p.stdout.read()
    rc = p.wait(10)
    check(rc == -sig, "hermes exec ended with %r, not by the signal" % rc)
    check(out == b"", "output after the signal: %r" % out)
    check(not os.path.exists(os.path.join(root, "after")), "the batch went on")
    check(wait_gone(bg, 10), "a descendant of the run outlived hermes exec")


def test_sigint():
    signal_exec(signal.SIGINT)


def test_sigterm():
    signal_exec(signal.SIGTERM)


run_tests(globals())
