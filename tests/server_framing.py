# tests/server_framing.py: the transport of hermes serve: both framings and their detection,
# broken and oversized frames followed by a request that still works, input cut at every byte
# offset of a message, end of input mid-message, and messages arriving a byte at a time.
import os
import time
from concurrent.futures import ThreadPoolExecutor

from server_lib import (Server, check, expect_error, expect_result, frame, run_tests)

REQ = b'{"jsonrpc":"2.0","id":7,"method":"fs.exists","params":{"path":"x"}}'


def test_content_length_headers():
    with Server("content-length") as s:
        # other headers are accepted and ignored; names are case-insensitive
        s.send_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s"
                   % (len(REQ), REQ))
        expect_result(s.recv(), 7)
        s.send_raw(b"content-length:%d\r\n\r\n%s" % (len(REQ), REQ))
        expect_result(s.recv(), 7)
        # bare \n line endings, blank lines and a stray newline between messages
        s.send_raw(b"\r\n\nContent-Length: %d\n\n%s\n" % (len(REQ), REQ))
        expect_result(s.recv(), 7)
        # several messages in one write
        s.send_raw(frame(REQ, "content-length") * 3)
        for _ in range(3):
            expect_result(s.recv(), 7)


def test_auto_detection_and_explicit_framing():
    for framing in ("ndjson", "content-length"):
        with Server(framing, args=["--framing=auto"]) as s:
            s.send_raw(b"\r\n" + frame(REQ, framing))
            expect_result(s.recv(), 7)
            r = expect_result(s.call("initialize", {}))
            check(r["capabilities"]["framing"] == framing, r)
        with Server(framing, args=["--framing=" + framing]) as s:
            s.send_raw(frame(REQ, framing))
            expect_result(s.recv(), 7)
    # NDJSON: blank lines and CRLF line endings
    with Server("ndjson", args=["--framing=ndjson"]) as s:
        s.send_raw(b"\n\r\n  \n" + REQ + b"\r\n")
        expect_result(s.recv(), 7)


def test_malformed_headers_resynchronise():
    bad = [
        b"Content-Length: abc\r\n\r\n" + REQ,
        b"Content-Length: -5\r\n\r\n" + REQ,
        b"Content-Length 5\r\n\r\n" + REQ,
        b"Content-Type: x\r\n\r\n" + REQ,                    # no Content-Length
        b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n" + REQ,
        b"Content-Length: 99999999999999999999999\r\n\r\n" + REQ,
        b"X-" + b"a" * 10000 + b": b\r\n\r\n" + REQ,        # header over 8 KiB
        b"Bad Name: 1\r\n\r\n" + REQ,
        b"Content-Length: 5\x01\r\n\r\n" + REQ,
    ]
    with Server("content-length", args=["--framing=content-length"]) as s:
        for b in bad:
            s.send_raw(b)
            e = expect_error(s.recv(), -32700, None)
            check("header" in e["message"], e)
            s.send_raw(frame(REQ, "content-length"))
            expect_result(s.recv(), 7)
            s.expect_silence(0.05)


def test_body_length_mismatch_recovers():
    with Server("content-length") as s:
        # a Content-Length one byte short: the message is broken, the next one still works
        s.send_raw(b"Content-Length: %d\r\n\r\n%s" % (len(REQ) - 1, REQ))
        expect_error(s.recv(), -32700, None)
        # the left-over "}" is resynchronised away
        s.send_raw(frame(REQ, "content-length"))
        r = s.recv()
        if "error" in r:   # "}" followed by a header is one broken header, then the request
            expect_error(r, -32700, None)
            r = s.recv()
        expect_result(r, 7)


def test_oversized_messages_are_skipped_unbuffered():
    limit = 1 << 20
    for framing in ("content-length", "ndjson"):
        with Server(framing, args=["--max-message-bytes", str(limit)]) as s:
            expect_result(s.call("fs.exists", {"path": "x"}))
            hwm0 = vm_hwm(s.proc.pid)
            big = b'{"jsonrpc":"2.0","id":1,"method":"fs.exists","params":{"path":"' + b"a" * (40 << 20) + b'"}}'
            s.send_raw(frame(big, framing))
            e = expect_error(s.recv(20), -32600, None)
            check("limit" in e["message"], e)
            expect_result(s.call("fs.exists", {"path": "x"}))
            grown = vm_hwm(s.proc.pid) - hwm0
            check(grown < 16 << 20, "memory grew by %d bytes for a skipped message" % grown)
            # just under the limit is fine
            ok = b'{"jsonrpc":"2.0","id":2,"method":"fs.exists","params":{"path":"' + b"a" * 4000 + b'"}}'
            s.send_raw(frame(ok, framing))
            check(s.recv()["id"] == 2, "small message")


def vm_hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def truncated_run(args):
    framing, data = args
    with Server(framing, args=["--framing=" + framing]) as s:
        s.send_raw(data)
        s.close_stdin()
        replies = s.read_to_eof(15)
        return replies, s.wait(15)


def test_truncated_at_every_offset():
    for framing in ("content-length", "ndjson"):
        msg = frame(REQ, framing)
        cuts = list(range(len(msg) + 1))
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(truncated_run, [(framing, msg[:k]) for k in cuts]))
        for k, (replies, rc) in zip(cuts, results):
            check(rc == 0, "%s cut at %d: exit status %d" % (framing, k, rc))
            prefix = msg[:k]
            complete = k == len(msg) or (framing == "ndjson" and k == len(msg) - 1)
            if complete:
                check(len(replies) == 1 and replies[0].get("id") == 7 and "result" in replies[0],
                      "%s cut at %d: %r" % (framing, k, replies))
            elif prefix.strip() == b"":
                check(replies == [], "%s cut at %d: %r" % (framing, k, replies))
            else:
                check(len(replies) == 1, "%s cut at %d: %r" % (framing, k, replies))
                expect_error(replies[0], -32700, None)


def test_eof_mid_message_with_work_in_flight():
    for framing in ("content-length", "ndjson"):
        with Server(framing) as s:
            s.send_raw(frame(REQ, framing) * 5 + frame(REQ, framing)[:30])
            s.close_stdin()
            replies = s.read_to_eof()
            check(len([r for r in replies if r.get("id") == 7]) == 5, replies)
            check(len([r for r in replies if r.get("error", {}).get("code") == -32700]) == 1, replies)
            check(s.wait() == 0, "status")


def test_byte_at_a_time():
    for framing in ("content-length", "ndjson"):
        with Server(framing) as s:
            data = frame(REQ, framing) * 3
            for i in range(len(data)):
                s.send_raw(data[i:i + 1])
                if i % 50 == 0:
                    time.sleep(0.001)
            for _ in range(3):
                expect_result(s.recv(), 7)


def test_garbage_between_ndjson_lines():
    with Server("ndjson") as s:
        s.send_raw(REQ + b"\nthis is not json\n" + REQ + b"\n")
        replies = [s.recv() for _ in range(3)]   # answered as they finish: any order
        check(sorted(str(r.get("id")) for r in replies) == ["7", "7", "None"], replies)
        expect_error([r for r in replies if r["id"] is None][0], -32700, None)


run_tests(globals())
