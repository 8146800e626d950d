# tests/server_shutdown_order.py: the reply to `shutdown` never overtakes the replies to requests
# sent before it. Each trial pipes a burst of requests, then shutdown and exit, into a fresh
# `hermes serve` and checks the order of what comes back; 1,000 trials (the race it guards showed
# up in about one trial in ten), two servers at a time.
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from server_lib import HERMES, check, run_tests

TRIALS = int(os.environ.get("HERMES_SHUTDOWN_TRIALS", "1000"))
BURST = 12


def one_trial(root, n):
    lines = []
    for i in range(BURST):
        method, params = [("fs.exists", {"path": "f.txt"}), ("fs.lineCount", {"path": "f.txt"}),
                          ("fs.readRange", {"path": "f.txt", "startLine": 1, "endLine": 2})][i % 3]
        lines.append({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    lines.append({"jsonrpc": "2.0", "id": "shutdown", "method": "shutdown"})
    lines.append({"jsonrpc": "2.0", "method": "exit"})
    data = "".join(json.dumps(m) + "\n" for m in lines).encode()
    p = subprocess.run([HERMES, "serve", "--root", root], input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    replies = [json.loads(l) for l in p.stdout.decode().splitlines()]
    ids = [r.get("id") for r in replies]
    check(p.returncode == 0, "trial %d: exit status %d, stderr %s" % (n, p.returncode, p.stderr[-500:]))
    check(sorted(ids, key=str) == sorted(list(range(BURST)) + ["shutdown"], key=str),
          "trial %d: replies %r" % (n, ids))
    check(ids[-1] == "shutdown", "trial %d: the shutdown reply overtook others: %r" % (n, ids))
    for r in replies:
        check("result" in r, "trial %d: %r" % (n, r))


def test_shutdown_reply_comes_after_earlier_replies():
    with tempfile.TemporaryDirectory(prefix="hermes-shutdown-order.") as root:
        with open(os.path.join(root, "f.txt"), "w") as f:
            f.write("one\ntwo\nthree\n")
        with ThreadPoolExecutor(max_workers=2) as pool:
            for f in [pool.submit(one_trial, root, n) for n in range(TRIALS)]:
                f.result()


run_tests(globals())
