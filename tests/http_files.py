# tests/http_files.py: raw transfers of `hermes mcp --listen` (GET/HEAD/PUT /files/PATH), driven
# by curl: whole files and byte ranges (206, 416), the strong ETag and 304, PUT creating (201)
# and replacing (204) atomically with If-Match / If-None-Match (412 on a conflict, nothing
# written), --read-only and a read-only token (403), a wrong token (401), paths outside the
# workspace, NUL and bad escapes, 64 concurrent PUTs naming one version (one wins), a client
# leaving mid-body (nothing left), and a 1 GiB file each way with the server's peak RSS under
# 128 MiB. Skipped without curl or where hermes was built without HTTP.
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

from server_lib import check, rss_kib, run_tests, sanitized

if os.environ.get("HERMES_HTTP") == "no":
    print("SKIP: hermes was configured --without-http (no hermes mcp --listen)")
    sys.exit(77)
if shutil.which("curl") is None:
    print("SKIP: curl is not installed")
    sys.exit(77)

from mcp_http import Http  # noqa: E402


def curl(h, path, *args, data=None):
    """(status, headers dict with lower-case names, body bytes) of one curl request."""
    url = "http://%s/files/%s" % (h.hostport, path)
    dump = [] if "-I" in args else ["-D", "-"]  # -I writes the headers to the output already
    p = subprocess.run(["curl", "-sS"] + dump + ["-o", "-", "--path-as-is"] + list(args) + [url],
                       input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    check(p.returncode == 0, "curl failed: %r" % p.stderr)
    out = p.stdout
    head, _, body = out.partition(b"\r\n\r\n")
    while head.startswith(b"HTTP/1.1 100"):
        head, _, body = body.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, hdrs, body


def put(h, path, data, *args):
    return curl(h, path, "-X", "PUT", "--data-binary", "@-", "-H",
                "Content-Type: application/octet-stream", *args, data=data)


def test_get_whole_and_ranges():
    with Http() as h:
        data = os.urandom(10000)
        with open(os.path.join(h.root, "b.bin"), "wb") as f:
            f.write(data)
        st, hd, body = curl(h, "b.bin")
        check(st == 200 and body == data and hd["accept-ranges"] == "bytes", (st, hd))
        etag = hd["etag"]
        check(re.fullmatch(r'"\d+\.\d+-10000-[0-9a-f]+"', etag), etag)
        for rng, off, end in [("bytes=0-0", 0, 0), ("bytes=100-199", 100, 199),
                              ("bytes=9990-", 9990, 9999), ("bytes=-10", 9990, 9999),
                              ("bytes=9000-20000", 9000, 9999), ("bytes=-20000", 0, 9999)]:
            st, hd, body = curl(h, "b.bin", "-H", "Range: " + rng)
            check(st == 206 and body == data[off:end + 1] and
                  hd["content-range"] == "bytes %d-%d/10000" % (off, end), (rng, st, hd))
        for rng in ["bytes=10000-", "bytes=-0", "bytes=20000-30000"]:
            st, hd, body = curl(h, "b.bin", "-H", "Range: " + rng)
            check(st == 416 and hd["content-range"] == "bytes */10000" and b"not satisfiable" in body,
                  (rng, st, hd, body))
        # ranges Hermes does not serve are ignored, as RFC 9110 allows: the whole file
        for rng in ["bytes=0-1,5-6", "lines=1-2", "bytes=5-1", "bytes=x-"]:
            st, hd, body = curl(h, "b.bin", "-H", "Range: " + rng)
            check(st == 200 and body == data, (rng, st))
        # If-Range with another version: the whole file
        st, hd, body = curl(h, "b.bin", "-H", "Range: bytes=0-9", "-H", 'If-Range: "old"')
        check(st == 200 and body == data, st)
        st, hd, body = curl(h, "b.bin", "-H", "If-None-Match: " + etag)
        check(st == 304 and body == b"" and hd["etag"] == etag, (st, hd))
        st, hd, body = curl(h, "b.bin", "-H", 'If-None-Match: "x", W/' + etag)
        check(st == 304, st)
        st, hd, body = curl(h, "b.bin", "-H", 'If-None-Match: "other"')
        check(st == 200 and body == data, st)
        st, hd, body = curl(h, "b.bin", "-I")
        check(st == 200 and hd["content-length"] == "10000" and body == b"" and hd["etag"] == etag,
              (st, hd))
        # empty file, encoded names, missing, directory
        open(os.path.join(h.root, "e m%pty"), "wb").close()
        st, hd, body = curl(h, "e%20m%25pty")
        check(st == 200 and body == b"", (st, body))
        st, hd, body = curl(h, "nope")
        check(st == 404 and b"nope" in body, (st, body))
        os.mkdir(os.path.join(h.root, "dir"))
        st, hd, body = curl(h, "dir")
        check(st == 409 and b"directory" in body, (st, body))
        st, hd, body = curl(h, "b.bin", "-X", "DELETE")
        check(st == 405 and "PUT" in hd["allow"], (st, hd))


def test_confinement():
    with Http() as h:
        outside = tempfile.mkdtemp(prefix="hermes-outside.")
        try:
            with open(os.path.join(outside, "secret"), "w") as f:
                f.write("TOPSECRET-9f2c")
            os.symlink(os.path.join(outside, "secret"), os.path.join(h.root, "link"))
            rel = os.path.relpath(os.path.join(outside, "secret"), h.root)
            for path in [rel, rel.replace("/", "%2f"), "link", "%2e%2e/%2e%2e/etc/passwd"]:
                st, hd, body = curl(h, path)
                check(st in (403, 404) and b"TOPSECRET" not in body and b"root:" not in body
                      and b"cannot read" in body, (path, st, body))
                st, hd, body = put(h, path, b"x")
                check(st in (403, 404) and b"cannot write" in body, (path, st, body))
            with open(os.path.join(outside, "secret")) as f:
                check(f.read() == "TOPSECRET-9f2c", "the file outside was written")
            for path in ["a%00b", "a%0ab", "a%zz", "a%2"]:
                st, hd, body = curl(h, path)
                check(st == 400 and body, (path, st, body))
        finally:
            shutil.rmtree(outside)


def test_put_create_replace_conflicts():
    with Http() as h:
        data = os.urandom(100000)
        st, hd, body = put(h, "d/new.bin", data)
        check(st == 201 and hd["etag"], (st, hd, body))
        v1 = hd["etag"]
        with open(os.path.join(h.root, "d/new.bin"), "rb") as f:
            check(f.read() == data, "the content differs")
        st, hd, _ = curl(h, "d/new.bin", "-I")
        check(hd["etag"] == v1, (hd, v1))
        # If-None-Match: * refuses an existing file
        st, hd, body = put(h, "d/new.bin", b"other", "-H", "If-None-Match: *")
        check(st == 412 and b"nothing was written" in body, (st, body))
        # If-Match with a stale version: 412, nothing written
        st, hd, body = put(h, "d/new.bin", b"other", "-H", 'If-Match: "1.2-3-4"')
        check(st == 412 and hd["etag"] == v1, (st, hd, body))
        with open(os.path.join(h.root, "d/new.bin"), "rb") as f:
            check(f.read() == data, "a refused PUT wrote")
        # If-Match with the current version: replaced (204), new version
        st, hd, body = put(h, "d/new.bin", b"second", "-H", "If-Match: " + v1)
        check(st == 204 and hd["etag"] != v1, (st, hd))
        v2 = hd["etag"]
        st, hd, body = put(h, "d/new.bin", b"third", "-H", "If-Match: " + v1)
        check(st == 412, st)
        st, hd, body = curl(h, "d/new.bin")
        check(body == b"second" and hd["etag"] == v2, (body, hd))
        # If-Match on an absent file; If-None-Match: * creates
        st, hd, body = put(h, "absent", b"x", "-H", "If-Match: *")
        check(st == 412 and not os.path.exists(os.path.join(h.root, "absent")), st)
        st, hd, body = put(h, "absent", b"x", "-H", "If-None-Match: *")
        check(st == 201, st)
        # a directory cannot be written; no temporary file left anywhere
        st, hd, body = put(h, "d", b"x")
        check(st == 409, (st, body))
        left = [n for n in os.listdir(os.path.join(h.root, "d")) if n != "new.bin"]
        check(left == [], left)
        # the write is in fs.history like the verbs'
        hist = os.path.join(h.root, ".hermes", "history")
        check(os.path.isdir(hist) and len(os.listdir(hist)) >= 3, os.listdir(hist))
        # a mode is kept on replace
        os.chmod(os.path.join(h.root, "d/new.bin"), 0o600)
        put(h, "d/new.bin", b"fourth")
        check(os.stat(os.path.join(h.root, "d/new.bin")).st_mode & 0o777 == 0o600, "mode lost")


def test_64_concurrent_puts_with_one_version_one_wins():
    import concurrent.futures
    with Http() as h:
        st, hd, _ = put(h, "cas.txt", b"start")
        v = hd["etag"]

        def one(i):
            return put(h, "cas.txt", b"writer %d" % i, "-H", "If-Match: " + v)[0]
        with concurrent.futures.ThreadPoolExecutor(64) as ex:
            codes = list(ex.map(one, range(64)))
        check(codes.count(204) == 1 and codes.count(412) == 63, sorted(codes))
        with open(os.path.join(h.root, "cas.txt"), "rb") as f:
            check(f.read().startswith(b"writer "), "the winner's content")
        # without a precondition every one lands, whole, one after the other
        with concurrent.futures.ThreadPoolExecutor(64) as ex:
            codes = list(ex.map(lambda i: put(h, "cas.txt", b"%d" % i * 1000)[0], range(64)))
        check(codes == [204] * 64, codes)
        with open(os.path.join(h.root, "cas.txt"), "rb") as f:
            got = f.read()
        check(len(set(got.decode())) >= 1 and got == got[:len(got) // 1000] * 1000, got[:40])
        left = sorted(n for n in os.listdir(h.root) if n not in (".hermes", ".stderr"))
        check(left == ["cas.txt"], left)  # no temporary file left


def test_a_client_leaving_mid_body_leaves_nothing():
    import socket
    import time
    with Http() as h:
        host, port = h.hostport.rsplit(":", 1)
        s = socket.create_connection((host, int(port)))
        s.sendall(b"PUT /files/half.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"
                  + b"x" * 100000)
        time.sleep(0.3)
        check(not os.path.exists(os.path.join(h.root, "half.bin")), "half a body is visible")
        s.close()
        deadline = time.monotonic() + 5
        def left_over():
            return [n for n in os.listdir(h.root) if n not in (".hermes", ".stderr")]
        while time.monotonic() < deadline and left_over():
            time.sleep(0.05)
        left = left_over()
        check(left == [], left)


def test_slow_transfers_outlast_the_request_timeout():
    # --http-timeout bounds how long a request takes to arrive; a transfer that keeps moving
    # outlasts it either way (only a stalled one is cut)
    with Http(args=["--http-timeout=2"]) as h:
        data = os.urandom(300000)
        big = os.urandom(24 << 20)  # more than the socket buffers hold: the server keeps sending
        with open(os.path.join(h.root, "slow.bin"), "wb") as f:
            f.write(big)
        st, hd, body = curl(h, "slow.bin", "--limit-rate", "5M")
        check(st == 200 and body == big, (st, len(body)))
        st, hd, body = put(h, "up.bin", data, "--limit-rate", "100k")
        check(st == 201, (st, body))
        with open(os.path.join(h.root, "up.bin"), "rb") as f:
            check(f.read() == data, "the slow upload's content")


def test_rights():
    with Http(args=["--read-only"]) as h:
        with open(os.path.join(h.root, "a"), "w") as f:
            f.write("a")
        st, hd, body = put(h, "a", b"b")
        check(st == 403 and b"read-only" in body, (st, body))
        st, hd, body = curl(h, "a")
        check(st == 200 and body == b"a", st)
    d = tempfile.mkdtemp(prefix="hermes-token.")
    try:
        tf = os.path.join(d, "tokens")
        with open(tf, "w") as f:
            f.write("writer-token-0123456789\nreader-token-0123456789 read-only\n")
        os.chmod(tf, 0o600)
        with Http(args=["--auth-token-file=" + tf]) as h:
            with open(os.path.join(h.root, "a"), "w") as f:
                f.write("a")
            st, hd, body = curl(h, "a")
            check(st == 401 and "www-authenticate" in hd, (st, hd))
            st, hd, body = curl(h, "a", "-H", "Authorization: Bearer wrong")
            check(st == 401, st)
            st, hd, body = put(h, "a", b"b", "-H", "Authorization: Bearer reader-token-0123456789")
            check(st == 403 and b"read-only" in body, (st, body))
            st, hd, body = curl(h, "a", "-H", "Authorization: Bearer reader-token-0123456789")
            check(st == 200 and body == b"a", st)
            st, hd, body = put(h, "a", b"b", "-H", "Authorization: Bearer writer-token-0123456789")
            check(st == 204, st)
            st, hd, body = curl(h, "a", "-H", "Origin: http://evil.example",
                                "-H", "Authorization: Bearer writer-token-0123456789")
            check(st == 403 and b"Origin" in body, (st, body))
    finally:
        shutil.rmtree(d)


def test_a_gibibyte_each_way_in_bounded_memory():
    with Http() as h:
        if sanitized(h.proc.pid):
            print("  (sanitized build: RSS not measured)")
        size = 1 << 30
        big = os.path.join(h.root, "big.bin")
        with open(big, "wb") as f:  # sparse but for a few marked blocks
            for off in range(0, size, 64 << 20):
                f.seek(off)
                f.write(b"mark %d" % off)
            f.truncate(size)
        digest = hashlib.sha256()
        with open(big, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        url = "http://%s/files/" % h.hostport
        p = subprocess.run("curl -sS -f %sbig.bin | sha256sum" % url, shell=True,
                           stdout=subprocess.PIPE, timeout=300)
        check(p.stdout.split()[0].decode() == digest.hexdigest(), "GET of 1 GiB differs")
        p = subprocess.run(["curl", "-sS", "-f", "-X", "PUT", "-T", big, url + "copy.bin"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        check(p.returncode == 0, p.stderr)
        check(os.path.getsize(os.path.join(h.root, "copy.bin")) == size, "the copy's size")
        d2 = hashlib.sha256()
        with open(os.path.join(h.root, "copy.bin"), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                d2.update(chunk)
        check(d2.hexdigest() == digest.hexdigest(), "PUT of 1 GiB differs")
        hwm = rss_kib(h.proc.pid, "VmHWM")
        print("  peak RSS while moving 1 GiB each way: %d KiB" % hwm)
        check(sanitized(h.proc.pid) or hwm < 128 * 1024, "peak RSS %d KiB" % hwm)


if __name__ == "__main__":
    run_tests(globals(), per_test_timeout=600)
