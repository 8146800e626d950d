# tests/lsp_direct.py: a small LSP client of the tests' own, that drives a language server
# (clangd, pyright) straight, as an editor would, so that the code.* verbs' answers can be checked
# against the server's own.
import json
import os
import shutil
import subprocess
import tempfile
import time

from server_lib import check

# A three-file C project for clangd (a header, the file that calls its function, the file that
# defines it) and c_project(), which writes it with its compile_commands.json into a fresh
# directory and returns that directory's real path.
C_FILES = {
    "b.h": "int helper(void);\n",
    "a.c": '#include "b.h"\n\nint main(void)\n{\n\treturn helper();\n}\n',
    "b.c": '#include "b.h"\n\nint helper(void)\n{\n\treturn 1;\n}\n',
}


def c_project(prefix, flags=()):
    ws = os.path.realpath(tempfile.mkdtemp(prefix=prefix))
    for rel, text in C_FILES.items():
        with open(os.path.join(ws, rel), "w") as f:
            f.write(text)
    with open(os.path.join(ws, "compile_commands.json"), "w") as f:
        json.dump([{"directory": ws, "file": rel, "arguments": ["cc", *flags, "-c", rel]}
                   for rel in ("a.c", "b.c")], f)
    return ws


# The framing half of a scripted language server (a Python program the tests write out and name
# with --lsp-server): read() takes one Content-Length message from stdin (exits at its end),
# send(msg) writes one to stdout.
FAKE_SERVER_IO = r'''import json, sys
def read():
    headers = {}
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)
        if line == b"\r\n":
            break
        k, v = line.decode().split(":", 1)
        headers[k.strip().lower()] = v.strip()
    return json.loads(sys.stdin.buffer.read(int(headers["content-length"])))
def send(msg):
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()
'''


def lsp_loc(l, ws):
    """An LSP location as Hermes gives it: (workspace-relative path, 1-based line and column of
    its start and end; columns as characters, which equal UTF-16 units in ASCII files)."""
    path = l["uri"][len("file://"):]
    rel = os.path.relpath(path, ws) if path.startswith(ws + "/") else path
    r = l["range"]
    return (rel, r["start"]["line"] + 1, r["start"]["character"] + 1, r["end"]["line"] + 1,
            r["end"]["character"] + 1)


def hermes_loc(l):
    return (l["path"], l["line"], l["column"], l["endLine"], l["endColumn"])


def find_position(ws, rel, text):
    """1-based line and column of the first occurrence of text in the file."""
    for n, line in enumerate(open(os.path.join(ws, rel), encoding="utf-8"), 1):
        if text in line:
            return n, line.index(text) + 1
    raise AssertionError("%s not in %s" % (text, rel))


def succeeded(r):
    check(r.get("succeeded") is True, r)
    return r


class Direct:
    """A language server driven straight, as an editor would: the answers Hermes' must equal."""

    def __init__(self, command, root, language_id):
        self.root = root
        self.language_id = language_id
        # a TMPDIR of its own, removed by close(): what the killed server leaves there (clangd's
        # preambles) does not pile up in /tmp
        self.tmp = tempfile.mkdtemp(prefix="hermes-lsp-direct.")
        self.p = subprocess.Popen(command, cwd=root, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, TMPDIR=self.tmp))
        self.next_id = 0
        self.active = 0
        self.seen = False
        self.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root,
                                    "capabilities": {"window": {"workDoneProgress": True}}})
        self.notify("initialized", {})

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            check(line, "clangd ended")
            if line == b"\r\n":
                break
            k, v = line.decode().split(":", 1)
            if k.lower() == "content-length":
                length = int(v)
        msg = json.loads(self.p.stdout.read(length))
        if msg.get("method") == "workspace/configuration":
            self.send({"jsonrpc": "2.0", "id": msg["id"],
                       "result": [None] * len(msg["params"]["items"])})
        elif "method" in msg and "id" in msg:
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif msg.get("method") == "$/progress":
            kind = msg["params"]["value"].get("kind")
            self.active += kind == "begin"
            self.active -= kind == "end"
            self.seen = True
        return msg

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == self.next_id and "method" not in msg:
                return msg["result"]

    def open(self, rel):
        text = open(os.path.join(self.root, rel), encoding="utf-8").read()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": "file://" + os.path.join(self.root, rel), "languageId": self.language_id,
            "version": 1,
            "text": text}})

    def settle(self, rel, progress=True):
        """Waits for the server's work (clangd: its background index) to be done: its progress
        to end, after an outline of rel (without progress: just the outline)."""
        deadline = time.monotonic() + 120
        self.request("textDocument/documentSymbol", {"textDocument": {
            "uri": "file://" + os.path.join(self.root, rel)}})
        while progress and (self.active or not self.seen) and time.monotonic() < deadline:
            self.read()

    def close(self):
        self.p.kill()
        self.p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def at(self, method, rel, line, col, extra=None):
        params = {"textDocument": {"uri": "file://" + os.path.join(self.root, rel)},
                  "position": {"line": line - 1, "character": col - 1}}
        params.update(extra or {})
        return self.request(method, params)
