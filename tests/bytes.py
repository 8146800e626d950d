# tests/bytes.py: binary files through the real binary: random files of many sizes written with
# fs.writeFile (encoding base64) and read back with fs.readBytes, whole and in ranges, byte for
# byte, through hermes serve and hermes exec; ranges at and past the end, a negative offset, the
# read limit (TooLarge for a whole read, any range within it fine), bad base64 (nothing written),
# versions (Conflict), and the MIME type and pixel size of each image type.
import base64
import json
import os
import random
import struct
import subprocess
import tempfile
import zlib

from server_lib import HERMES, Server, check, expect_error, expect_result, run_tests

seed = int(os.environ.get("HERMES_TEST_SEED", random.randrange(1 << 30)))
print("seed %d (HERMES_TEST_SEED=%d replays it)" % (seed, seed))
rng = random.Random(seed)
SIZES = [0, 1, 2, 3, 4, 5, 255, 256, 4095, 4096, 4097, 65535, 65536, 65537, 300000, 1 << 20]


def ok(reply):
    r = expect_result(reply)
    check(r.get("succeeded") is True, "failed: %r" % (r,))
    return r


def failed(reply, code):
    r = expect_result(reply)
    check(r.get("succeeded") is False and r.get("errorCode") == code,
          "expected %s, got %r" % (code, r))
    return r


def test_round_trip_serve():
    with Server() as s:
        for size in SIZES:
            data = bytes(rng.getrandbits(8) for _ in range(size)) if size < 70000 else os.urandom(size)
            name = "d/f%d.bin" % size
            w = ok(s.call("fs.writeFile", {"path": name, "encoding": "base64",
                                           "content": base64.b64encode(data).decode()}, 30))
            with open(os.path.join(s.root, name), "rb") as f:
                check(f.read() == data, "%d bytes: the file differs from what was sent" % size)
            r = ok(s.call("fs.readBytes", {"path": name}, 30))
            check(base64.b64decode(r["content"], validate=True) == data, "%d bytes: read differs" % size)
            check(r["size"] == size and r["length"] == size and r["offset"] == 0 and r["eof"],
                  "%d bytes: size/length/eof %r" % (size, {k: r[k] for k in ("size", "length", "eof")}))
            check(r["version"] == w["version"], "%d bytes: version differs from the write's" % size)
            # In ranges of a random length, put together again.
            got, off = b"", 0
            step = rng.randrange(1, 70000)
            while True:
                r = ok(s.call("fs.readBytes", {"path": name, "offset": off, "length": step}, 30))
                part = base64.b64decode(r["content"], validate=True)
                check(r["length"] == len(part) and r["offset"] == off, "range fields %r" % r["length"])
                got += part
                off += len(part)
                if r["eof"]:
                    break
                check(len(part) == step, "a short range before the end")
            check(got == data, "%d bytes in ranges of %d: differs" % (size, step))


def test_ranges_and_limits():
    with Server(args=["--max-read-bytes=1000"]) as s:
        data = os.urandom(5000)
        with open(os.path.join(s.root, "big.bin"), "wb") as f:
            f.write(data)
        failed(s.call("fs.readBytes", {"path": "big.bin"}), "TooLarge")
        failed(s.call("fs.readBytes", {"path": "big.bin", "length": 1001}), "TooLarge")
        failed(s.call("fs.readBytes", {"path": "big.bin", "offset": 3999}), "TooLarge")
        r = ok(s.call("fs.readBytes", {"path": "big.bin", "offset": 4000}))  # the last 1000: fine
        check(base64.b64decode(r["content"]) == data[4000:] and r["eof"], "the tail")
        r = ok(s.call("fs.readBytes", {"path": "big.bin", "offset": 10, "length": 1000}))
        check(base64.b64decode(r["content"]) == data[10:1010] and not r["eof"], "a middle range")
        for off in (5000, 5001, 1 << 40):
            r = ok(s.call("fs.readBytes", {"path": "big.bin", "offset": off}))
            check(r["content"] == "" and r["length"] == 0 and r["eof"] and r["size"] == 5000,
                  "offset %d past the end: %r" % (off, r))
        r = ok(s.call("fs.readBytes", {"path": "big.bin", "offset": 4990, "length": 1000}))
        check(r["length"] == 10 and r["eof"], "a range running past the end is cut there")
        r = ok(s.call("fs.readBytes", {"path": "big.bin", "length": 0}))
        check(r["content"] == "" and not r["eof"], "length 0")
        e = expect_error(s.call("fs.readBytes", {"path": "big.bin", "offset": -1}), -32602)
        check(e["data"]["errorCode"] == "InvalidArguments" and "offset" in e["message"], repr(e))
        failed(s.call("fs.readBytes", {"path": "missing"}), "NotFound")
        os.mkdir(os.path.join(s.root, "dir"))
        failed(s.call("fs.readBytes", {"path": "dir"}), "IsADirectory")
        failed(s.call("fs.readBytes", {"path": "../x"}), "OutsideWorkspace")


def test_bad_base64_writes_nothing():
    with Server() as s:
        with open(os.path.join(s.root, "keep.bin"), "wb") as f:
            f.write(b"old")
        for bad, where in (("Zm9v YmFy", "position 4"), ("Zg=", "length 3"), ("Zh==", "position 1"),
                           ("Zg==Zg==", "position 2"), ("Zm9-", "position 3")):
            r = failed(s.call("fs.writeFile", {"path": "keep.bin", "encoding": "base64",
                                               "content": bad}), "InvalidArgument")
            check(where in r["errorMessage"], "%r: %s" % (bad, r["errorMessage"]))
            r = failed(s.call("fs.writeFile", {"path": "new/x.bin", "encoding": "base64",
                                               "content": bad}), "InvalidArgument")
        with open(os.path.join(s.root, "keep.bin"), "rb") as f:
            check(f.read() == b"old", "a refused write changed the file")
        check(not os.path.exists(os.path.join(s.root, "new")), "a refused write made a directory")
        r = failed(s.call("fs.writeFile", {"path": "keep.bin", "encoding": "latin1", "content": ""}),
                   "InvalidArgument")
        check("latin1" in r["errorMessage"] and "base64" in r["errorMessage"], r["errorMessage"])
        # Versions: a stale one is refused, nothing written; the current one works.
        v = ok(s.call("fs.readBytes", {"path": "keep.bin"}))["version"]
        ok(s.call("fs.writeFile", {"path": "keep.bin", "encoding": "base64", "content": "AAEC",
                                   "expectedVersion": v}))
        failed(s.call("fs.writeFile", {"path": "keep.bin", "encoding": "base64", "content": "AwQF",
                                       "expectedVersion": v}), "Conflict")
        with open(os.path.join(s.root, "keep.bin"), "rb") as f:
            check(f.read() == b"\0\1\2", "the conflicting write changed the file")


def png(w, h):
    def chunk(t, b):
        return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b))
    raw = b"".join(b"\0" + b"\x80\x40\x20" * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def gif(w, h):
    return (b"GIF89a" + struct.pack("<HHBBB", w, h, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff" +
            b",\0\0\0\0" + struct.pack("<HH", w, h) + b"\0\x02\x02\x44\x01\0;")


def jpeg(w, h):
    return (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" +
            b"\xff\xe1\x01\x00" + b"E" * 254 +
            b"\xff\xc0\x00\x11\x08" + struct.pack(">HH", h, w) + b"\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01" +
            b"\xff\xd9")


def webp(w, h):
    c = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + struct.pack("<I", (w - 1) | (h - 1) << 14) + b"\0"
    return b"RIFF" + struct.pack("<I", len(c) + 4) + b"WEBP" + c


def test_images():
    with Server() as s:
        for name, data, mime, w, h in (("a.png", png(31, 17), "image/png", 31, 17),
                                       ("a.gif", gif(300, 2), "image/gif", 300, 2),
                                       ("a.jpg", jpeg(1920, 1080), "image/jpeg", 1920, 1080),
                                       ("a.webp", webp(550, 368), "image/webp", 550, 368)):
            ok(s.call("fs.writeFile", {"path": name, "encoding": "base64",
                                       "content": base64.b64encode(data).decode()}))
            r = ok(s.call("fs.readBytes", {"path": name}))
            check(r["mimeType"] == mime, "%s: mimeType %r" % (name, r["mimeType"]))
            check((r["width"], r["height"]) == (w, h), "%s: %rx%r" % (name, r["width"], r["height"]))
            check(base64.b64decode(r["content"]) == data, name + ": content")
            r = ok(s.call("fs.readBytes", {"path": name, "offset": 1, "length": 2}))
            check(r["mimeType"] == mime and r["width"] == w, name + ": a range still has the type")
        with open(os.path.join(s.root, "t.txt"), "w") as f:
            f.write("plain text\n")
        r = ok(s.call("fs.readBytes", {"path": "t.txt"}))
        check(r["mimeType"] == "text/plain" and r["width"] is None and r["height"] is None, repr(r))
        check(base64.b64decode(r["content"]) == b"plain text\n", "text as bytes")


def test_mcp_round_trip():
    # The same verbs as MCP tools (fs_writeFile, fs_readBytes): structured results, both ways.
    with Server(command="mcp") as s:
        expect_result(s.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "bytes.py", "version": "1"}}))
        s.notify("notifications/initialized")
        for size in (0, 1, 2, 3, 1000, 70000):
            data = os.urandom(size)
            r = expect_result(s.call("tools/call", {"name": "fs_writeFile", "arguments": {
                "path": "m%d.bin" % size, "encoding": "base64",
                "content": base64.b64encode(data).decode()}}))
            check(not r.get("isError") and r["structuredContent"]["succeeded"], repr(r)[:300])
            r = expect_result(s.call("tools/call", {"name": "fs_readBytes", "arguments": {"path": "m%d.bin" % size}}))
            sc = r["structuredContent"]
            check(base64.b64decode(sc["content"], validate=True) == data and sc["size"] == size,
                  "mcp: %d bytes differ" % size)


def test_exec_round_trip():
    with tempfile.TemporaryDirectory(prefix="hermes-bytes.") as root:
        data = os.urandom(100000)
        env = [{"verb": "fs.writeFile", "arguments": {"path": "x.bin", "encoding": "base64",
                                                      "content": base64.b64encode(data).decode()}},
               {"verb": "fs.readBytes", "arguments": {"path": "x.bin", "offset": 99990}}]
        p = subprocess.run([HERMES, "exec", "--root", root], input="\n".join(map(json.dumps, env)),
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 0, "exec: %d %s" % (p.returncode, p.stderr))
        lines = [json.loads(l) for l in p.stdout.splitlines()]
        check(lines[0]["succeeded"] and lines[1]["succeeded"], repr(lines))
        check(base64.b64decode(lines[1]["content"]) == data[99990:] and lines[1]["length"] == 10,
              "exec: the tail")
        with open(os.path.join(root, "x.bin"), "rb") as f:
            check(f.read() == data, "exec: the file written")
        # YAML too: the same verb, its encoding argument as a plain scalar.
        p = subprocess.run([HERMES, "exec", "--root", root],
                           input="verb: fs.writeFile\narguments: {path: y.bin, encoding: base64, content: AP8=}\n",
                           capture_output=True, text=True, timeout=30)
        with open(os.path.join(root, "y.bin"), "rb") as f:
            check(p.returncode == 0 and f.read() == b"\0\xff", "YAML: " + p.stdout)


run_tests(globals())
