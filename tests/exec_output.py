# tests/exec_output.py: how `hermes exec` writes a big result. Once its output passes 256 KiB,
# a standard output that is a pipe of the default 64 KiB is widened to 1 MiB (or as near as
# /proc/sys/fs/pipe-max-size allows), so that the next piece is made while the reader reads; a
# small result leaves the pipe as it was, a wider pipe is never narrowed, and a regular file is
# written as before. Every result is checked whole against the file.
import fcntl
import json
import os
import subprocess

from server_lib import HERMES, check, run_tests, temp_dir

F_SETPIPE_SZ = 1031
F_GETPIPE_SZ = 1032


def workspace(size):
    root = temp_dir("hermes-exec-output.")
    line = "\tif (x == \"a\\b\") return 1; /* text that needs escapes */\n"
    text = (line * (size // len(line) + 1))[:size]
    with open(os.path.join(root, "f.txt"), "w") as f:
        f.write(text)
    return root, text


def run_into_pipe(root, pipe_size=None):
    """hermes exec fs.readFile f.txt, its stdout a pipe: (the parsed result, the pipe's size after)"""
    r, w = os.pipe()
    if pipe_size:
        fcntl.fcntl(w, F_SETPIPE_SZ, pipe_size)
    p = subprocess.Popen([HERMES, "exec", "--root=" + root], stdin=subprocess.PIPE, stdout=w)
    os.close(w)
    p.stdin.write(b'{"verb":"fs.readFile","arguments":{"path":"f.txt"}}')
    p.stdin.close()
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    size = fcntl.fcntl(r, F_GETPIPE_SZ)
    os.close(r)
    check(p.wait(30) == 0, "hermes exec failed")
    return json.loads(b"".join(chunks)), size


def widest():
    with open("/proc/sys/fs/pipe-max-size") as f:
        return min(int(f.read()), 1 << 20)


def test_big_result_widens_the_pipe():
    root, text = workspace(3 << 20)
    result, size = run_into_pipe(root)
    check(result["content"] == text, "the content differs from the file")
    check(size >= widest(), "the pipe is %d bytes after a 3 MiB result, not widened" % size)


def test_small_result_leaves_the_pipe():
    root, text = workspace(100 << 10)
    result, size = run_into_pipe(root)
    check(result["content"] == text, "the content differs from the file")
    check(size == 65536, "a 100 KiB result changed the pipe to %d bytes" % size)


def test_wider_pipe_is_not_narrowed():
    root, text = workspace(3 << 20)
    want = 4 << 20  # over pipe-max-size: allowed to root only (CAP_SYS_RESOURCE)
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, want)
    except PermissionError:
        want = 1 << 20
    finally:
        os.close(r)
        os.close(w)
    result, size = run_into_pipe(root, want)
    check(result["content"] == text, "the content differs from the file")
    check(size == want, "a pipe of %d bytes became %d" % (want, size))


def test_regular_file_output():
    root, text = workspace(3 << 20)
    out = os.path.join(root, "out.json")
    with open(out, "wb") as f:
        p = subprocess.run([HERMES, "exec", "--root=" + root], stdout=f, timeout=30,
                           input=b'{"verb":"fs.readFile","arguments":{"path":"f.txt"}}')
    check(p.returncode == 0, "hermes exec failed")
    with open(out, "rb") as f:
        check(json.loads(f.read())["content"] == text, "the content differs from the file")


run_tests(globals())
