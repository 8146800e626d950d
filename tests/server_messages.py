# tests/server_messages.py: JSON-RPC 2.0 messages in hermes serve: every error code, ids of both
# kinds echoed exactly, notifications, batches, the hermes/* methods, and verb failures that are
# results (not errors), exactly as `hermes exec` prints them.
import json
import os
import subprocess

from server_lib import (HERMES, Server, both_framings, check, expect_error, expect_result,
                        run_tests)


@both_framings
def test_parse_error_then_valid_request(framing):
    with Server(framing) as s:
        for bad in ['{"jsonrpc":"2.0","id":1,"method":', "{'a':1}", '{"a":1}}', "[1,]", "nul",
                    '{"a":"\\x"}', b'"\xff"', b'{"jsonrpc":"2.0","id":1,"method":"\xc0\xaf"}'] + \
                   (["", " "] if framing == "content-length" else []):
            s.send(bad)
            e = expect_error(s.recv(), -32700, None)
            check("line" in e["data"] and "column" in e["data"], e)
        expect_result(s.call("fs.exists", {"path": "x"}))


@both_framings
def test_invalid_requests(framing):
    with Server(framing) as s:
        cases = [
            ('1', None), ('"x"', None), ('null', None), ('true', None),
            ('{"id":1,"method":"fs.exists"}', 1),                       # no jsonrpc
            ('{"jsonrpc":"1.0","id":2,"method":"fs.exists"}', 2),
            ('{"jsonrpc":2.0,"id":3,"method":"fs.exists"}', 3),
            ('{"jsonrpc":"2.0","id":4}', 4),                            # no method
            ('{"jsonrpc":"2.0","id":5,"method":5}', 5),
            ('{"jsonrpc":"2.0","id":6,"method":"fs.exists","params":"p"}', 6),
            ('{"jsonrpc":"2.0","id":{},"method":"fs.exists"}', None),
            ('{"jsonrpc":"2.0","id":true,"method":"fs.exists"}', None),
            ('{"jsonrpc":"2.0","id":[7],"method":"fs.exists"}', None),
            ('{"jsonrpc":"2.0","id":8,"id":9,"method":"fs.exists"}', None),
            ('{"jsonrpc":"2.0","id":10,"method":"fs.exists","method":"x"}', 10),
            ('{"jsonrpc":"2.0","method":7}', None),                     # even as a notification
        ]
        for text, id in cases:
            s.send(text)
            e = expect_error(s.recv(), -32600, id)
            check(e["message"], text)
        expect_result(s.call("fs.exists", {"path": "x"}))


def test_method_not_found():
    with Server() as s:
        for m in ["nope", "rpc.discover", "FS_EXISTS", "hermes/nope", "$/nope", ""]:
            e = expect_error(s.call(m), -32601)
            check(m in e["message"], e)
        s.notify("nope")           # notifications are never answered
        s.expect_silence()


def test_invalid_params_name_the_field():
    with Server() as s:
        cases = [
            ("fs.exists", {}, "path", "InvalidArguments"),
            ("fs.exists", {"path": 1}, "path", "InvalidArguments"),
            ("fs.exists", {"path": "a", "bogus": 1}, "bogus", "InvalidArguments"),
            ("fs.exists", [1], "params", "InvalidArguments"),
            ("hermes/execute", {"verb": "fs.exists", "arguments": {}}, "arguments.path", "InvalidArguments"),
            ("hermes/execute", {"verb": "no.such", "arguments": {}}, "verb", "UnknownVerb"),
            ("hermes/execute", None, "params", "InvalidEnvelope"),
            ("hermes/schema", {"verb": "no.such"}, "verb", "UnknownVerb"),
            ("$/cancelRequest", {}, "id", "InvalidArguments"),
        ]
        for method, params, field, code in cases:
            e = expect_error(s.call(method, params), -32602)
            check(e["data"]["field"] == field and e["data"]["errorCode"] == code,
                  "%s %r: %r" % (method, params, e))
        # the same precise sentence as hermes exec
        env = {"verb": "fs.exists", "arguments": {"path": "a", "limit": 3}}
        e = expect_error(s.call("hermes/execute", env), -32602)
        out = subprocess.run([HERMES, "exec", "-"], input=json.dumps(env).encode(), cwd=s.root,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(e["message"].encode() in out.stdout + out.stderr,
              "hermes exec says %r, serve says %r" % (out.stdout + out.stderr, e["message"]))


def test_verb_failure_is_a_result_like_exec():
    with Server() as s:
        env = {"verb": "fs.readFile", "arguments": {"path": "missing.txt"}}
        a = expect_result(s.call("hermes/execute", env))
        b = expect_result(s.call("fs.readFile", env["arguments"]))
        check(a["succeeded"] is False and a["errorCode"] == "NotFound", a)
        check(a == b, (a, b))
        out = subprocess.run([HERMES, "exec", "-"], input=json.dumps(env).encode(), cwd=s.root,
                             stdout=subprocess.PIPE)
        check(json.loads(out.stdout) == a, "hermes exec printed %r" % out.stdout)
        # outside the workspace: a result too
        c = expect_result(s.call("fs.exists", {"path": "../x"}))
        check(c["succeeded"] is False and c["errorCode"] == "OutsideWorkspace", c)


def test_nul_characters_are_refused_everywhere():
    # A "\u0000" never shortens a string: a path, verb, executable or argument holding one is
    # refused with the field named, and nothing happens to the file the shortened name would be.
    with Server() as s:
        s.write_file("important.txt", b"keep me\n")
        cases = [
            ("fs.deleteFile", {"path": "important.txt\u0000.bak"}, "path"),
            ("hermes/execute", {"verb": "fs.deleteFile", "arguments": {"path": "important.txt\u0000.bak"}},
             "arguments.path"),
            ("fs.moveFile", {"sourcePath": "important.txt\u0000x", "destinationPath": "moved.txt"}, "sourcePath"),
            ("proc.run", {"executable": "rm\u0000x", "arguments": ["important.txt"]}, "executable"),
            ("proc.run", {"executable": "rm", "arguments": ["important.txt\u0000x"]}, "arguments[0]"),
            ("hermes/schema", {"verb": "fs.exists\u0000x"}, "verb"),
        ]
        for n, (method, params, field) in enumerate(cases):
            body = json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
            s.send(body)
            e = expect_error(s.reply_to(n), -32602)
            check(e["data"].get("field", "").startswith(field), "%s %r: %r" % (method, params, e))
            check("NUL" in e["message"], e)
        # the verb named in an envelope, and the method itself
        s.send('{"jsonrpc":"2.0","id":"v","method":"hermes/execute","params":'
               '{"verb":"fs.deleteFile\\u0000","arguments":{"path":"important.txt"}}}')
        expect_error(s.reply_to("v"), -32602)
        s.send('{"jsonrpc":"2.0","id":"m","method":"fs.deleteFile\\u0000x","params":{"path":"important.txt"}}')
        e = expect_error(s.reply_to("m"), -32600)
        check("NUL" in e["message"], e)
        with open(os.path.join(s.root, "important.txt"), "rb") as f:
            check(f.read() == b"keep me\n", "important.txt was touched")


def test_nul_in_workspace_root_is_refused():
    with Server() as s:
        s.send('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"workspaceRoot":"%s\\u0000/x"}}'
               % s.root)
        e = expect_error(s.reply_to(1), -32602)
        check(e["data"]["field"] == "workspaceRoot", e)


@both_framings
def test_ids_are_echoed_exactly(framing):
    with Server(framing) as s:
        ids = ['0', '-1', '1.5', '1e3', '12345678901234567890', '-0.0', '"a"', '""',
               '"\\u00e9\\ud83d\\ude00"', '"\u00e9 \\" \\\\ \\n"', '"12"']
        for raw in ids:
            s.send('{"jsonrpc":"2.0","id":%s,"method":"fs.exists","params":{"path":"x"}}' % raw)
            s.recv()
            body = s.raw[-1].decode()
            check(body.startswith('{"jsonrpc":"2.0","id":%s,' % raw), "id %s echoed as %s" % (raw, body))
        s.send('{"jsonrpc":"2.0","id":null,"method":"fs.exists","params":{"path":"x"}}')
        r = s.recv()
        check(r["id"] is None and "result" in r, r)


@both_framings
def test_notifications_are_never_answered(framing):
    with Server(framing) as s:
        s.notify("fs.exists", {"path": "x"})
        s.notify("fs.exists", {"bogus": 1})          # even an invalid one
        s.notify("hermes/verbs")
        s.notify("initialized")
        s.expect_silence()
        expect_result(s.call("fs.exists", {"path": "x"}))


@both_framings
def test_batches(framing):
    with Server(framing) as s:
        s.write_file("yes.txt", "y")
        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "fs.exists", "params": {"path": "yes.txt"}},
            {"jsonrpc": "2.0", "method": "fs.exists", "params": {"path": "yes.txt"}},
            {"jsonrpc": "2.0", "id": "b", "method": "nope"},
            5,
            {"jsonrpc": "2.0", "id": 3, "method": "hermes/execute",
             "params": {"verb": "fs.exists", "arguments": {"path": "no.txt"}}},
            {"jsonrpc": "2.0", "id": 4, "method": "fs.exists", "params": {}},
            {"jsonrpc": "2.0", "id": 5, "method": "hermes/verbs"},
            [],
        ]
        s.send(batch)
        r = s.recv()
        check(isinstance(r, list) and len(r) == 7, r)
        by = {json.dumps(x["id"]): x for x in r}
        check(expect_result(by["1"], 1)["exists"] is True, r)
        expect_error(by['"b"'], -32601, "b")
        check(expect_result(by["3"], 3)["exists"] is False, r)
        expect_error(by["4"], -32602, 4)
        expect_result(by["5"], 5)
        nulls = [x for x in r if x["id"] is None]
        check(len(nulls) == 2 and all(x["error"]["code"] == -32600 for x in nulls), nulls)
        # empty batch: one error, not an array
        s.send("[]")
        expect_error(s.recv(), -32600, None)
        # only notifications: no reply at all
        s.send([{"jsonrpc": "2.0", "method": "fs.exists", "params": {"path": "x"}}] * 3)
        s.expect_silence()
        # invalid elements only
        s.send("[1,2,3]")
        r = s.recv()
        check(isinstance(r, list) and len(r) == 3 and all(x["error"]["code"] == -32600 for x in r), r)
        # a batch of many
        s.send([{"jsonrpc": "2.0", "id": i, "method": "fs.exists", "params": {"path": "yes.txt"}}
                for i in range(300)])
        r = s.recv()
        check(sorted(x["id"] for x in r) == list(range(300)), "300 replies in one batch")


def test_verbs_and_schema():
    with Server() as s:
        v = expect_result(s.call("hermes/verbs"))["verbs"]
        names = [x["name"] for x in v]
        check(names == sorted(names) and "fs.exists" in names, names)
        check(all(x["description"] for x in v), v)
        one = expect_result(s.call("hermes/schema", {"verb": "fs.readFile"}))
        out = subprocess.run([HERMES, "schema", "fs.readFile"], stdout=subprocess.PIPE)
        check(one["schema"] == out.stdout.decode(), "schema differs from hermes schema:\n%r\n%r"
              % (one["schema"], out.stdout))
        check(one["verb"] == "fs.readFile", one)
        every = expect_result(s.call("hermes/schema"))["schema"]
        check(all(("type " in every) for _ in [0]) and one["schema"] in every, "all verbs")
        expect_result(s.call("hermes/schema", {}))
        expect_error(s.call("hermes/schema", {"verb": 3}), -32602)


def test_per_verb_methods_match_execute():
    with Server() as s:
        s.write_file("t.txt", "one\ntwo\n")
        a = expect_result(s.call("fs.readFile", {"path": "t.txt"}))
        b = expect_result(s.call("hermes/execute", {"verb": "fs.readFile", "arguments": {"path": "t.txt"}}))
        check(a == b and a["content"] == "one\ntwo\n", (a, b))
        m = expect_result(s.call("sys.machineInfo"))
        check(m["succeeded"] is True and m["cpuCount"] >= 1, m)
        m = expect_result(s.call("sys.machineInfo", {}))


def test_non_ascii_content_length_counts_bytes():
    with Server("content-length") as s:
        name = "d\u00e9j\u00e0 \U0001F600.txt"
        s.write_file(name, "\u00e9t\u00e9\n")
        r = expect_result(s.call("fs.readFile", {"path": name}))
        check(r["content"] == "\u00e9t\u00e9\n", r)


run_tests(globals())
