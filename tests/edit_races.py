# tests/edit_races.py: fs.deleteFile and fs.moveFile take the writer lock (issue 25), so an edit
# racing them lands before (and is deleted or moved with the file) or finds the file gone: a
# deleted or moved file never comes back under its old name, and an edit reported successful
# is in the moved file. 32 pairs race at once through hermes serve, HERMES_RACE_ROUNDS times
# (default 100).
import os

from server_lib import Server, check, expect_result, frame, run_tests

ROUNDS = int(os.environ.get("HERMES_RACE_ROUNDS", "100"))
PAIRS = 32


def burst(s, requests):
    data = b""
    for i, (method, params) in enumerate(requests):
        data += frame({"jsonrpc": "2.0", "id": i, "method": method, "params": params}, s.framing)
    s.send_raw(data)
    replies = {}
    for _ in requests:
        r = s.recv(60)
        replies[r["id"]] = r
    return replies


def edit(path, i):
    return ("fs.editFile", {"path": path, "edits": [{"oldText": "text %d\n" % i,
                                                      "newText": "edited %d\n" % i}]})


def ok(r):
    return "result" in r and r["result"].get("succeeded") is True


def not_found(r):
    return "result" in r and r["result"].get("errorCode") == "NotFound"


def test_edit_vs_delete():
    with Server() as s:
        resurrected = edits_ok = 0
        for rnd in range(ROUNDS):
            reqs = []
            for i in range(PAIRS):
                s.write_file("d%d.txt" % i, "text %d\n" % i)
                # Alternate which one is sent first.
                pair = [edit("d%d.txt" % i, i), ("fs.deleteFile", {"path": "d%d.txt" % i})]
                reqs += pair if (i + rnd) % 2 else pair[::-1]
            replies = burst(s, reqs)
            for i in range(PAIRS):
                e, d = (replies[2 * i], replies[2 * i + 1]) if (i + rnd) % 2 else \
                    (replies[2 * i + 1], replies[2 * i])
                expect_result(d)
                check(ok(d), "round %d: delete of d%d.txt failed: %r" % (rnd, i, d))
                check(ok(e) or not_found(e), "round %d: edit of d%d.txt: %r" % (rnd, i, e))
                edits_ok += ok(e)
                if os.path.exists(os.path.join(s.root, "d%d.txt" % i)):
                    resurrected += 1
        check(resurrected == 0, "%d of %d deleted files came back" % (resurrected, ROUNDS * PAIRS))
        check(not [n for n in os.listdir(s.root) if n.endswith(".hermes-tmp")],
              "temporary files left")
        print("edit vs delete: %d pairs, %d edits landed before the delete, 0 resurrected"
              % (ROUNDS * PAIRS, edits_ok))


def test_edit_vs_move():
    with Server() as s:
        bad = []
        edits_ok = 0
        for rnd in range(ROUNDS):
            reqs = []
            for i in range(PAIRS):
                s.write_file("m%d.txt" % i, "text %d\n" % i)
                dst = os.path.join(s.root, "moved%d.txt" % i)
                if os.path.exists(dst):
                    os.unlink(dst)
                pair = [edit("m%d.txt" % i, i),
                        ("fs.moveFile", {"sourcePath": "m%d.txt" % i,
                                         "destinationPath": "moved%d.txt" % i})]
                reqs += pair if (i + rnd) % 2 else pair[::-1]
            replies = burst(s, reqs)
            for i in range(PAIRS):
                e, m = (replies[2 * i], replies[2 * i + 1]) if (i + rnd) % 2 else \
                    (replies[2 * i + 1], replies[2 * i])
                check(ok(m), "round %d: move of m%d.txt failed: %r" % (rnd, i, m))
                check(ok(e) or not_found(e), "round %d: edit of m%d.txt: %r" % (rnd, i, e))
                edits_ok += ok(e)
                if os.path.exists(os.path.join(s.root, "m%d.txt" % i)):
                    bad.append("round %d: m%d.txt came back" % (rnd, i))
                with open(os.path.join(s.root, "moved%d.txt" % i)) as f:
                    text = f.read()
                want = ("edited %d\n" if ok(e) else "text %d\n") % i
                if text != want:
                    bad.append("round %d: moved%d.txt is %r, the edit said %s" %
                               (rnd, i, text, "succeeded" if ok(e) else "NotFound"))
        check(not bad, "%d of %d pairs wrong, e.g. %s" % (len(bad), ROUNDS * PAIRS, bad[:3]))
        print("edit vs move: %d pairs, %d edits landed before the move, none lost or resurrected"
              % (ROUNDS * PAIRS, edits_ok))


if __name__ == "__main__":
    run_tests(globals(), per_test_timeout=600)
