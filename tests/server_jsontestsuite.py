# tests/server_jsontestsuite.py: every file of the JSONTestSuite parsing corpus sent to hermes serve
# as a message. y_ (valid JSON) must never be a parse error, n_ (not JSON) must be -32700, i_ may go
# either way; each message gets exactly one reply and the server keeps answering afterwards.
import os
import sys

from server_lib import (TOP_SRCDIR, Server, check, expect_error, expect_result, frame, run_tests)


def corpus_dir():
    # tests/local.mk exports JSONTESTSUITE_DIR: the copy in tests/data.
    for d in (os.environ.get("JSONTESTSUITE_DIR"),
              os.path.join(TOP_SRCDIR, "tests", "data", "JSONTestSuite", "test_parsing")):
        if d and os.path.isdir(d):
            return d
    return None


CORPUS = corpus_dir()


def load():
    files = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".json") and name[:2] in ("y_", "n_", "i_"):
            with open(os.path.join(CORPUS, name), "rb") as f:
                files.append((name, f.read()))
    return files


def check_reply(name, reply):
    items = reply if isinstance(reply, list) else [reply]
    codes = [m["error"]["code"] if "error" in m else None for m in items]
    if name.startswith("y_"):
        check(-32700 not in codes, "%s is valid JSON but got a parse error: %r" % (name, reply))
        check(all(c == -32600 for c in codes), "%s: %r" % (name, reply))
    elif name.startswith("n_"):
        check(codes == [-32700], "%s is not JSON but got %r" % (name, reply))
    else:
        check(all(c in (-32700, -32600) for c in codes), "%s: %r" % (name, reply))


def run_corpus(framing, files):
    with Server(framing, args=["--framing=" + framing]) as s:
        for name, data in files:
            s.send_raw(frame(data, framing))
            try:
                reply = s.recv(10)
            except Exception as e:
                raise AssertionError("%s: %s" % (name, e))
            check_reply(name, reply)
        # still answering, and nothing extra was sent
        s.send_raw(frame(b'{"jsonrpc":"2.0","id":"last","method":"fs.exists","params":{"path":"x"}}', framing))
        expect_result(s.recv(), "last")
        s.close_stdin()
        check(s.read_to_eof() == [], "one reply per message")
        check(s.wait() == 0, "exit status")


def test_corpus_content_length():
    check(CORPUS is not None, "the JSONTestSuite corpus is missing from tests/data")
    run_corpus("content-length", load())


def test_corpus_ndjson():
    check(CORPUS is not None, "the JSONTestSuite corpus is missing from tests/data")
    # a line is a message: files holding a newline, or nothing but blanks, cannot be sent as one
    files = [(n, d) for n, d in load() if b"\n" not in d and d.strip(b" \t\r") != b""]
    run_corpus("ndjson", files)


def test_corpus_inside_requests():
    """Each valid JSON value as the params of a request: a verb rejects it with -32602 (or
    accepts it), never a crash or a parse error."""
    check(CORPUS is not None, "the JSONTestSuite corpus is missing from tests/data")
    with Server("content-length") as s:
        n = 0
        for name, data in load():
            if not name.startswith("y_"):
                continue
            body = b'{"jsonrpc":"2.0","id":%d,"method":"fs.exists","params":{"path":%s}}' % (n, data)
            s.send_raw(frame(body, "content-length"))
            r = s.recv(10)
            check(r["id"] == n, r)
            if "error" in r:
                expect_error(r, -32602, n)
            n += 1
        expect_result(s.call("fs.exists", {"path": "x"}))


run_tests(globals())
