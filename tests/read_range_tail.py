# tests/read_range_tail.py: fs.readRange with lines counted from the end, against Python's own
# slicing of the same file: random line lengths (some longer than the 64 KiB blocks read
# backwards, some straddling their edges), files with and without a final newline, CRLF, and many
# ranges, negative, mixed and positive. The seed is printed and taken from HERMES_TEST_SEED.
import json
import os
import random
import subprocess
import sys
import tempfile

HERMES = os.environ["HERMES"]
seed = int(os.environ.get("HERMES_TEST_SEED", random.randrange(1 << 30)))
print("seed %d (HERMES_TEST_SEED=%d replays it)" % (seed, seed))
rng = random.Random(seed)
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def make_lines(n):
    out = []
    for i in range(n):
        r = rng.random()
        size = rng.randrange(0, 5) if r < 0.3 else rng.randrange(5, 200) if r < 0.97 else rng.randrange(60000, 140000)
        out.append("".join(rng.choice("abcdefghij é") for _ in range(size)))
    return out


def expected(lines, start, end, numbers):
    total = len(lines)
    s = start if start > 0 else max(1, total + start + 1)
    e = end if end > 0 else total + end + 1
    chosen = lines[s - 1:e] if e >= s else []
    at_end = max(e, 0) >= total or start > total  # no line of the file after the range
    if not numbers:
        return "".join(chosen), at_end
    width = len(str(s + len(chosen) - 1)) if chosen else 0
    return "".join("%*d: %s" % (width, s + i, l) for i, l in enumerate(chosen)), at_end


with tempfile.TemporaryDirectory(prefix="hermes-tail.") as root:
    runs = []
    for variant in range(6):
        body = [l + ("\r\n" if variant == 4 else "\n") for l in make_lines(rng.randrange(0, 400))]
        if variant in (1, 5) and body:
            body[-1] = body[-1].rstrip("\r\n")  # no final newline
            if not body[-1]:
                body.pop()  # an empty last line without its newline is no line at all
        name = "f%d.txt" % variant
        with open(os.path.join(root, name), "w", encoding="utf-8") as f:
            f.write("".join(body))
        n = len(body)
        for _ in range(40):
            a, b = rng.randrange(-n - 3, n + 4) or -1, rng.randrange(-n - 3, n + 4) or -1
            numbers = rng.random() < 0.5
            if (a > 0) == (b > 0) and b < a:
                a, b = b, a
            runs.append((name, body, a, b, numbers))
        for k in sorted({1, 2, 10, n, n + 5} - {0}):  # -0 is no line number
            runs.append((name, body, -k, -1, False))
    envs = "".join(json.dumps({"verb": "fs.readRange", "arguments": {
        "path": name, "startLine": a, "endLine": b, "includeLineNumbers": numbers}}) + "\n"
        for name, body, a, b, numbers in runs)
    p = subprocess.run([HERMES, "exec", "--root", root, "-"], input=envs.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = [json.loads(l) for l in p.stdout.decode().splitlines()]
    check(len(results) == len(runs), "%d results for %d envelopes" % (len(results), len(runs)))
    for (name, body, a, b, numbers), r in zip(runs, results):
        want, at_end = expected(body, a, b, numbers)
        what = "%s lines %d..%d numbers=%s" % (name, a, b, numbers)
        check(r.get("succeeded") is True, "%s: %r" % (what, r))
        check(r.get("content") == want, "%s: got %r, want %r" % (what, r.get("content", "")[:200], want[:200]))
        check(r.get("reachedEnd") == at_end, "%s: reachedEnd %r, want %r" % (what, r.get("reachedEnd"), at_end))
    print("%d ranges compared" % len(runs))
sys.exit(1 if failures else 0)
