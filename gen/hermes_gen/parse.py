"""Reading and validating the .def tables.

The tables are X-macro style: a sequence of NAME(arg, ...) calls, C comments, and C string
literals (adjacent literals concatenate). Errors are raised as DefError with a compiler-style
message: 'defs/verbs.def:42: error: unknown type 'int33''.
"""
import re

from .model import CONFLICTING_TRAITS, TRAITS, ErrorCode, Field, Table, Type, Verb

SCALARS = {"STRING": "string", "INT32": "int32", "INT64": "int64", "BOOL": "bool"}
INT_RANGES = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}
RESERVED_RESULT_FIELDS = {"succeeded", "errorMessage", "errorCode"}


class DefError(Exception):
    pass


class Loc:
    def __init__(self, path, line):
        self.path = path
        self.line = line

    def error(self, msg):
        return DefError("%s:%d: error: %s" % (self.path, self.line, msg))


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\f\v]+) |
    (?P<nl>\n) |
    (?P<comment>/\*.*?\*/ | //[^\n]*) |
    (?P<string>"(?:[^"\\\n]|\\.)*") |
    (?P<ident>[A-Za-z_][A-Za-z0-9_]*) |
    (?P<number>-?[0-9]+) |
    (?P<punct>[(),|])
""", re.VERBOSE | re.DOTALL)

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def _unescape(lit, loc):
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                raise loc.error("unsupported escape '\\%s' in string" % nxt)
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def tokenize(text, path):
    line, pos, toks = 1, 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            if text[pos] == '"':
                raise Loc(path, line).error("unterminated string")
            if text.startswith("/*", pos):
                raise Loc(path, line).error("unterminated comment")
            raise Loc(path, line).error("unexpected character %r" % text[pos])
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "string":
            toks.append(("string", _unescape(val, Loc(path, line)), Loc(path, line)))
        elif kind in ("ident", "number", "punct"):
            toks.append((kind, val, Loc(path, line)))
        line += val.count("\n")
        pos = m.end()
    toks.append(("eof", None, Loc(path, line)))
    return toks


class Call:
    """NAME(args): args are idents, numbers, strings or nested calls."""

    def __init__(self, name, args, loc):
        self.name = name
        self.args = args
        self.loc = loc


def parse_calls(toks):
    i = 0

    def expect(kind, val=None):
        nonlocal i
        k, v, loc = toks[i]
        if k != kind or (val is not None and v != val):
            want = val if val is not None else kind
            got = v if v is not None else "end of file"
            raise loc.error("expected %s, found '%s'" % (want, got))
        i += 1
        return v, loc

    def arg():
        nonlocal i
        k, v, loc = toks[i]
        if k == "string":
            parts = []
            while toks[i][0] == "string":
                parts.append(toks[i][1])
                i += 1
            return ("string", "".join(parts), loc)
        if k == "number":
            i += 1
            return ("number", v, loc)
        if k == "ident":
            if toks[i + 1][0] == "punct" and toks[i + 1][1] == "(":
                return ("call", call(), loc)
            i += 1
            if not (toks[i][0] == "punct" and toks[i][1] == "|"):
                return ("ident", v, loc)
            names = [(v, loc)]   # A | B | C: a set of flags
            while toks[i][0] == "punct" and toks[i][1] == "|":
                i += 1
                fk, fv, floc = toks[i]
                if fk != "ident":
                    raise floc.error("expected a name after '|', found '%s'"
                                     % (fv if fv is not None else "end of file"))
                i += 1
                names.append((fv, floc))
            return ("flags", names, loc)
        raise loc.error("expected an argument, found '%s'" % (v if v is not None else "end of file"))

    def call():
        nonlocal i
        name, loc = expect("ident")
        expect("punct", "(")
        args = []
        if not (toks[i][0] == "punct" and toks[i][1] == ")"):
            args.append(arg())
            while toks[i][0] == "punct" and toks[i][1] == ",":
                i += 1
                args.append(arg())
        expect("punct", ")")
        return Call(name, args, loc)

    calls = []
    while toks[i][0] != "eof":
        calls.append(call())
    return calls


def _want(call, kinds):
    if len(call.args) != len(kinds):
        raise call.loc.error("%s takes %d argument%s, got %d" % (
            call.name, len(kinds), "" if len(kinds) == 1 else "s", len(call.args)))
    for (k, v, loc), want in zip(call.args, kinds):
        if k != want:
            what = {"string": "a string", "ident": "a name", "call": "a type", "number": "a number",
                    "flags": "names joined by |"}
            raise loc.error("%s: expected %s, found %s" % (call.name, what[want], what[k]))
    return [v for _, v, _ in call.args]


def _spell(kind, value):
    """An argument as the table wrote it, for messages (a call by its name)."""
    if kind == "call":
        return value.name
    if kind == "flags":
        return " | ".join(n for n, _ in value)
    return value


def _description(text, loc):
    if not text.strip():
        raise loc.error("empty description")
    if "\n" in text:
        raise loc.error("a description is one line")
    return text


def _ident_re(pattern, name, what, loc):
    if not re.fullmatch(pattern, name):
        raise loc.error("invalid %s name '%s'" % (what, name))


def _field(table, call):
    if len(call.args) != 4:
        raise call.loc.error("HERMES_FIELD takes 4 arguments (name, TYPE, PRESENCE, \"description\"), got %d"
                             % len(call.args))
    (nk, name, nloc), (tk, tv, tloc), (pk, pv, ploc), (dk, desc, dloc) = call.args
    if nk != "ident":
        raise nloc.error("HERMES_FIELD: expected a field name")
    _ident_re(r"[a-z][A-Za-z0-9]*", name, "field (camelCase)", nloc)
    element = None
    bounds = None
    handle = False
    if tk == "ident" and tv == "HANDLE":
        kind, handle = "string", True
    elif tk == "ident":
        if tv not in SCALARS:
            raise tloc.error("unknown type '%s' (expected STRING, HANDLE, INT32, INT64, BOOL or "
                             "LIST(...))" % tv)
        kind = SCALARS[tv]
    elif tk == "call" and tv.name in ("INT32", "INT64"):
        # INT32(min, max): the values the verb accepts; MAX is the type's largest
        kind = SCALARS[tv.name]
        lo, hi = INT_RANGES[kind]
        if len(tv.args) != 2:
            raise tloc.error("%s(min, max) takes two bounds" % tv.name)
        got = []
        for bk, bv, bloc in tv.args:
            if bk == "ident" and bv in ("MIN", "MAX"):
                got.append(lo if bv == "MIN" else hi)
            elif bk == "number" and lo <= int(bv) <= hi:
                got.append(int(bv))
            else:
                raise bloc.error("a bound of %s must be an integer in its range, MIN or MAX" % tv.name)
        if got[0] > got[1]:
            raise tloc.error("%s(%d, %d): the minimum is above the maximum" % (tv.name, got[0], got[1]))
        bounds = tuple(got)
    elif tk == "call" and tv.name == "LIST":
        if len(tv.args) != 1 or tv.args[0][0] != "ident":
            raise tloc.error("LIST takes one element type")
        ename = tv.args[0][1]
        kind = "list"
        if ename == "STRING":
            element = "string"
        elif ename in SCALARS:
            raise tloc.error("lists of %s are not supported (only STRING and declared types)" % ename)
        else:
            element = table.type_named(ename)
            if element is None:
                raise tloc.error("unknown type '%s' (a list's element type is declared before use)" % ename)
            if element.is_result:
                raise tloc.error("'%s' is a result type and cannot be a list element" % ename)
            if any(f.handle for f in element.fields):
                raise tloc.error("'%s' has a HANDLE field and cannot be a list element (a handle "
                                 "is mirrored into an HTTP header from a verb's own arguments)" % ename)
    else:
        raise tloc.error("unknown type '%s'" % _spell(tk, tv))
    default = None
    if pk == "ident" and pv in ("REQUIRED", "OPTIONAL"):
        presence = pv.lower()
    elif pk == "call" and pv.name == "DEFAULT":
        presence = "default"
        if len(pv.args) != 1:
            raise ploc.error("DEFAULT takes one value")
        dkind, dval, dloc2 = pv.args[0]
        if kind == "bool":
            if dkind != "ident" or dval not in ("true", "false"):
                raise dloc2.error("default of a BOOL field must be true or false")
            default = dval == "true"
        elif kind in INT_RANGES:
            lo, hi = INT_RANGES[kind]
            if bounds:
                lo, hi = bounds
            if dkind != "number" or not lo <= int(dval) <= hi:
                raise dloc2.error("default of a %s field must be an integer in range" % kind.upper())
            default = int(dval)
        elif kind == "string":
            if dkind != "string":
                raise dloc2.error("default of a STRING field must be a string")
            default = dval
        else:
            raise dloc2.error("a list cannot have a default")
    else:
        raise ploc.error("unknown presence '%s' (expected REQUIRED, OPTIONAL or DEFAULT(value))"
                         % _spell(pk, pv))
    if dk != "string":
        raise dloc.error("HERMES_FIELD: expected a description string")
    f = Field(name, kind, element, presence, default, _description(desc, dloc), call.loc)
    f.bounds = bounds
    f.handle = handle
    if handle and kind == "list":
        raise tloc.error("a HANDLE is one string")
    return f


def _traits(arg):
    """TRAITS of HERMES_VERB: NONE, or trait names joined by |; returned in TRAITS order."""
    kind, value, loc = arg
    if kind == "ident":
        names = [(value, loc)]
    elif kind == "flags":
        names = value
    else:
        raise loc.error("HERMES_VERB: expected traits (e.g. READ_ONLY | IDEMPOTENT, or NONE)")
    seen = []
    for name, nloc in names:
        if name == "NONE":
            if len(names) > 1:
                raise nloc.error("'NONE' cannot be combined with other traits")
            return []
        if name not in TRAITS:
            raise nloc.error("unknown trait '%s' (expected %s, or NONE)" % (name, " | ".join(TRAITS)))
        if name in seen:
            raise nloc.error("duplicate trait '%s'" % name)
        for a, b in CONFLICTING_TRAITS:
            other = b if name == a else a if name == b else None
            if other in seen:
                raise nloc.error("traits '%s' and '%s' contradict each other" % (other, name))
        seen.append(name)
    return [t for t in TRAITS if t in seen]


def _build(calls, table, path):
    current = None   # Type being filled, or 'common'
    verb_names = {}
    for c in calls:
        if c.name in ("HERMES_TYPE", "HERMES_RESULT"):
            if current is not None:
                raise c.loc.error("%s inside another block (missing HERMES_END())" % c.name)
            name, desc = _want(c, ["ident", "string"])
            _ident_re(r"[A-Z][A-Za-z0-9]*", name, "type (PascalCase)", c.args[0][2])
            if name in ("String", "Int32", "Int64", "Boolean") or table.type_named(name):
                raise c.loc.error("type '%s' is already declared" % name)
            current = Type(name, _description(desc, c.args[1][2]), c.name == "HERMES_RESULT", c.loc)
            table.types.append(current)
        elif c.name == "HERMES_COMMON_RESULT":
            _want(c, [])
            if current is not None:
                raise c.loc.error("HERMES_COMMON_RESULT inside another block")
            if table.common_fields:
                raise c.loc.error("HERMES_COMMON_RESULT is declared twice")
            current = "common"
        elif c.name == "HERMES_FIELD":
            if current is None:
                raise c.loc.error("HERMES_FIELD outside a type")
            f = _field(table, c)
            fields = table.common_fields if current == "common" else current.fields
            if any(g.name == f.name for g in fields):
                raise c.loc.error("duplicate field '%s'" % f.name)
            if current != "common" and current.is_result and f.name in RESERVED_RESULT_FIELDS:
                raise c.loc.error("'%s' is a common result field and cannot be redeclared" % f.name)
            if f.handle and (current == "common" or current.is_result):
                raise c.loc.error("a HANDLE is an argument (results return handles as STRING)")
            if f.handle and any(g.handle for g in fields):
                raise c.loc.error("a type has at most one HANDLE (its header, Mcp-Param-Handle, "
                                  "is named once)")
            fields.append(f)
        elif c.name == "HERMES_END":
            _want(c, [])
            if current is None:
                raise c.loc.error("HERMES_END() without an open block")
            current = None
        elif c.name == "HERMES_VERB":
            if current is not None:
                raise c.loc.error("HERMES_VERB inside a type (missing HERMES_END())")
            if len(c.args) != 5:
                raise c.loc.error("HERMES_VERB takes 5 arguments (\"name\", ArgsType, ResultType, TRAITS, "
                                  "\"description\"), got %d" % len(c.args))
            traits = _traits(c.args[3])
            # the traits were read above; _want checks the kinds of the other four arguments
            name, aname, rname, _, desc = _want(
                c, ["string", "ident", "ident", c.args[3][0], "string"])
            if not re.fullmatch(r"[a-z]+\.[a-z][A-Za-z0-9]*", name):
                raise c.args[0][2].error("invalid verb name '%s' (expected family.camelCase)" % name)
            if name.lower() in verb_names:
                raise c.loc.error("verb '%s' is already declared (verb names are case-insensitive)" % name)
            verb_names[name.lower()] = True
            args, result = table.type_named(aname), table.type_named(rname)
            if args is None:
                raise c.args[1][2].error("unknown type '%s'" % aname)
            if result is None:
                raise c.args[2][2].error("unknown type '%s'" % rname)
            if args.is_result:
                raise c.args[1][2].error("'%s' is a result type, not an argument type" % aname)
            if not result.is_result:
                raise c.args[2][2].error("'%s' is not a result type (declare it with HERMES_RESULT)" % rname)
            for v in table.verbs:
                if v.args is args or v.result is result:
                    raise c.loc.error("verb '%s' shares a type with '%s'; every verb has its own" % (name, v.name))
            table.verbs.append(Verb(name, args, result, traits, _description(desc, c.args[4][2]), c.loc))
        else:
            raise c.loc.error("unknown macro '%s'" % c.name)
    if current is not None:
        raise Loc(path, calls[-1].loc.line).error("missing HERMES_END() at end of file")
    common = [f.name for f in table.common_fields]
    if common != ["succeeded", "errorMessage", "errorCode"]:
        raise Loc(path, 1).error("HERMES_COMMON_RESULT must declare succeeded, errorMessage, errorCode")
    if not table.verbs:
        raise Loc(path, 1).error("no verbs declared")


def _errors(calls, table):
    for c in calls:
        if c.name != "HERMES_ERROR":
            raise c.loc.error("unknown macro '%s' (expected HERMES_ERROR)" % c.name)
        name, desc = _want(c, ["ident", "string"])
        _ident_re(r"[A-Z][A-Za-z0-9]*", name, "error code (PascalCase)", c.loc)
        if any(e.name == name for e in table.errors):
            raise c.loc.error("error code '%s' is already declared" % name)
        table.errors.append(ErrorCode(name, _description(desc, c.loc), c.loc))


def load_table(verbs_path, errors_path):
    table = Table()
    with open(errors_path, encoding="utf-8") as f:
        _errors(parse_calls(tokenize(f.read(), errors_path)), table)
    with open(verbs_path, encoding="utf-8") as f:
        _build(parse_calls(tokenize(f.read(), verbs_path)), table, verbs_path)
    return table
