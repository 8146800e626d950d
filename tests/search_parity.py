#!/usr/bin/env python3
"""tests/search_parity.py: fs.search must find exactly what ripgrep finds.

On the tree of tests/search_corpus.py (nested .gitignore files, .ignore, .git/info/exclude, a
nested repository, hidden, binary, CRLF, long-line, Unicode and invalid UTF-8 files, symlinks),
runs a set of patterns and option combinations through `hermes exec` and through
`rg --no-heading --line-number --column --with-filename --null` with the matching options
(ignoreCase -i, fixedStrings -F, includeHidden --hidden, respectIgnore=false --no-ignore,
include -g G, exclude -g '!G', contextLines -C, a subdirectory path by running rg in it), and
compares every matching line: path, line, column, text, and the context lines. fs.glob's "**"
is compared with `rg --files` the same way, and filesSearched with the text files rg lists.

The one deliberate difference, .git never being searched, is given to rg as -g '!.git'.
Skipped (77) when rg is not installed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import search_corpus  # noqa: E402

HERMES = os.environ.get("HERMES", "hermes")
RG = shutil.which("rg")
LINE_SHOWN, LINE_SHOWN_BEFORE = 2048, 256

# (pattern, options, rg engine): options are fs.search arguments.
CASES = [
    ("hello", {}),
    ("hello", {"includeHidden": True}),
    ("hello", {"respectIgnore": False}),
    ("hello", {"respectIgnore": False, "includeHidden": True}),
    ("hello", {"path": "src"}),
    ("hello", {"path": "docs/a"}),
    ("hello", {"path": "vendor"}),
    ("hello", {"path": "src/lib", "includeHidden": True}),
    ("hello", {"include": ["*.txt"]}),
    ("hello", {"include": ["src/**"]}),
    ("hello", {"include": ["*.{c,rs}"], "exclude": ["gen-*"]}),
    ("hello", {"exclude": ["*.txt", "docs/"]}),
    ("hello", {"include": ["build", "*.c"]}),
    ("hello", {"include": ["*.log"], "respectIgnore": False}),
    ("hello", {"include": [".env", "*.yml"]}),
    ("hello", {"path": "src", "include": ["/lib/**"]}),
    ("HELLO", {"ignoreCase": True}),
    ("hello", {"contextLines": 2}),
    ("hello", {"contextLines": 1, "path": "crlf.txt"}),
    ("hello", {"path": "noeol.txt"}),
    ("hello", {"path": "src/debug.log"}),
    ("alpha beta", {}),
    ("a.b", {"fixedStrings": True}),
    ("3.14", {"fixedStrings": True}),
    ("(x)", {"fixedStrings": True, "respectIgnore": False}),
    ("\\bfn\\s+\\w+", {}),
    ("^\\s*#include", {}),
    ("[0-9]{3,}", {}),
    ("(foo|bar)\\s+baz", {}),
    ("o$", {}),
    ("^$", {}),
    ("^", {"path": "blank-lines.txt"}),
    ("", {"path": "crlf.txt"}),
    ("world$", {}),
    ("ß", {}),
    ("STRASSE|straße", {"ignoreCase": True}),
    ("été", {"ignoreCase": True}),
    ("σίσυφος", {"ignoreCase": True}),
    ("\\p{Greek}+", {}),
    ("\\w+é\\b", {}),
    ("東京", {}),
    ("😀", {}),
    ("caf.", {}),
    ("hello (middle|late|early)", {}),
    ("[aeiou]{5}", {"path": "long"}),
    ("hello", {"contextLines": 3, "path": "long"}),
    ("hello bytes", {}),
    ("na.ve", {}),
    ("TODO|FIXME", {"include": ["**/*.{c,h}"], "contextLines": 1}),
    ("x", {"include": ["pkg/**/*.md"], "ignoreCase": True}),
]
# PCRE2-only syntax: compared with rg -P.
PCRE_CASES = [
    ("hello(?= world)", {}),
    ("(?<=#include <)\\w+", {}),
    ("\\b(\\w+) \\1\\b", {}),
    ("fn \\w++\\(", {}),
    ("(?i)straße", {}),
]


def rg_args(opts, engine_pcre):
    a = [RG, "--no-config", "--no-ignore-global", "--no-heading", "--line-number", "--column",
         "--with-filename", "--null", "--color", "never"]
    if engine_pcre:
        a.append("-P")
    if opts.get("ignoreCase"):
        a.append("-i")
    if opts.get("fixedStrings"):
        a.append("-F")
    if opts.get("includeHidden"):
        a.append("--hidden")
    if opts.get("respectIgnore") is False:
        a.append("--no-ignore")
    if opts.get("contextLines"):
        a += ["-C", str(opts["contextLines"])]
    for g in opts.get("include", []):
        a += ["-g", g]
    for g in opts.get("exclude", []):
        a += ["-g", "!" + g]
    a += ["-g", "!.git"]
    return a


def text_of(raw):
    raw = raw[:-1] if raw.endswith(b"\r") else raw
    return raw


def shown(raw, at):
    """The documented cut of a long line (see SearchMatch.text in defs/verbs.def)."""
    n = len(raw)
    if n <= LINE_SHOWN:
        return raw.decode("utf-8", "replace")
    start = 0
    if at is not None and at >= LINE_SHOWN - LINE_SHOWN_BEFORE:
        start = min(at - LINE_SHOWN_BEFORE, n - LINE_SHOWN)
        while start < n and raw[start] & 0xC0 == 0x80:
            start += 1
    end = min(start + LINE_SHOWN, n)
    while start < end < n and raw[end] & 0xC0 == 0x80:
        end -= 1
    out = b""
    if start:
        out += b"[...%d bytes...]" % start
    out += raw[start:end]
    if end < n:
        out += b"[...%d bytes...]" % (n - end)
    return out.decode("utf-8", "replace")


def run_rg(corpus, pattern, opts, engine_pcre):
    """Matches {(path, line): (column, text)} and all printed lines {(path, line): raw}."""
    path = opts.get("path", ".")
    full = os.path.join(corpus, path)
    args = rg_args(opts, engine_pcre) + ["-e", pattern]
    if os.path.isdir(full):
        # "." given, or rg would search its standard input when that is not a terminal.
        cwd, prefix = full, ("" if path == "." else path.rstrip("/") + "/")
        args.append(".")
    else:
        cwd, prefix = corpus, ""
        args.append(path)
    p = subprocess.run(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in (0, 1):
        raise RuntimeError("rg failed: %s: %s" % (args, p.stderr.decode(errors="replace")))
    matches, lines = {}, {}
    for rec in p.stdout.split(b"\n"):
        if b"\0" not in rec:
            continue  # "--" between context groups
        name, rest = rec.split(b"\0", 1)
        name = name[2:] if name.startswith(b"./") else name
        key_path = prefix + name.decode("utf-8")
        m = re.match(rb"(\d+):(\d+):(.*)\Z", rest, re.S)
        if m:
            line, col, raw = int(m.group(1)), int(m.group(2)), text_of(m.group(3))
            matches[(key_path, line)] = (col, raw)
            lines[(key_path, line)] = raw
            continue
        m = re.match(rb"(\d+)-(.*)\Z", rest, re.S)
        if m:
            lines[(key_path, int(m.group(1)))] = text_of(m.group(2))
    return matches, lines


def run_hermes(corpus, envelopes):
    inp = "".join(json.dumps(e) + "\n" for e in envelopes)
    p = subprocess.run([HERMES, "exec", "--root", corpus], input=inp.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = [json.loads(l) for l in p.stdout.decode().splitlines()]
    if len(out) != len(envelopes):
        raise RuntimeError("hermes exec gave %d results for %d envelopes: %s"
                           % (len(out), len(envelopes), p.stderr.decode()))
    return out


def is_binary(path):
    with open(path, "rb") as f:
        return b"\0" in f.read(8192)


def rg_files(corpus, opts):
    args = [RG, "--no-config", "--no-ignore-global", "--files", "--null", "-g", "!.git"]
    if opts.get("includeHidden"):
        args.append("--hidden")
    if opts.get("respectIgnore") is False:
        args.append("--no-ignore")
    for g in opts.get("include", []):
        args += ["-g", g]
    for g in opts.get("exclude", []):
        args += ["-g", "!" + g]
    path = opts.get("path", ".")
    full = os.path.join(corpus, path)
    if not os.path.isdir(full):
        return [path]
    p = subprocess.run(args, cwd=full, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, check=True)
    prefix = "" if path == "." else path.rstrip("/") + "/"
    return [prefix + n.decode() for n in p.stdout.split(b"\0") if n]


def main():
    if not RG:
        print("SKIP: rg (ripgrep) is not installed")
        return 77
    failures, checks, lines_compared = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="hermes-parity.") as tmp:
        corpus = os.path.join(tmp, "corpus")
        search_corpus.make(corpus)
        cases = [(p, o, False) for p, o in CASES] + [(p, o, True) for p, o in PCRE_CASES]
        # maxResults as high as the read limit allows with the context asked for.
        envs = [{"verb": "fs.search",
                 "arguments": dict(o, pattern=p, maxResults=10000 // (2 * o.get("contextLines", 0) + 1))}
                for p, o, _ in cases]
        results = run_hermes(corpus, envs)
        for (pattern, opts, pcre), res in zip(cases, results):
            what = "pattern %r %s%s" % (pattern, json.dumps(opts), " (rg -P)" if pcre else "")
            checks += 1
            if not res.get("succeeded"):
                failures.append("%s: fs.search failed: %s" % (what, res.get("errorMessage")))
                continue
            if res["truncated"]:
                failures.append("%s: truncated" % what)
            want, lines = run_rg(corpus, pattern, opts, pcre)
            got = {(m["path"], m["line"]): m for m in res["matches"]}
            lines_compared += len(set(got) | set(want))
            if not want:
                failures.append("%s: rg finds nothing; the case tests nothing" % what)
            for key in sorted(set(want) - set(got)):
                failures.append("%s: missing %s:%d (rg finds it)" % (what, key[0], key[1]))
            for key in sorted(set(got) - set(want)):
                failures.append("%s: extra %s:%d %r (rg does not find it)"
                                % (what, key[0], key[1], got[key]["text"][:80]))
            ctx = opts.get("contextLines", 0)
            for key in sorted(set(got) & set(want)):
                m, (col, raw) = got[key], want[key]
                if m["column"] != col:
                    failures.append("%s: %s:%d column %d, rg says %d"
                                    % (what, key[0], key[1], m["column"], col))
                if m["text"] != shown(raw, col - 1):
                    failures.append("%s: %s:%d text %r, expected %r"
                                    % (what, key[0], key[1], m["text"][:80], shown(raw, col - 1)[:80]))
                before = [shown(lines[(key[0], key[1] - i)], None)
                          for i in range(ctx, 0, -1) if (key[0], key[1] - i) in lines]
                after = []
                for i in range(1, ctx + 1):
                    if (key[0], key[1] + i) not in lines:
                        break
                    after.append(shown(lines[(key[0], key[1] + i)], None))
                if m["before"] != before or m["after"] != after:
                    failures.append("%s: %s:%d context %r / %r, rg shows %r / %r"
                                    % (what, key[0], key[1], m["before"], m["after"], before, after))
            order = [(m["path"].encode(), m["line"]) for m in res["matches"]]
            if order != sorted(order):
                failures.append("%s: matches not sorted by path and line" % what)
            # Every text file rg would search is searched.
            files = rg_files(corpus, opts)
            text_files = [f for f in files if not is_binary(os.path.join(corpus, f))]
            if res["filesSearched"] != len(text_files):
                failures.append("%s: filesSearched %d, rg lists %d text files"
                                % (what, res["filesSearched"], len(text_files)))

        # A smaller maxResults keeps exactly the first matches of the full, sorted result, however
        # the parallel workers met them.
        full = {json.dumps(o, sort_keys=True): r for (p, o, pc), r in zip(cases, results)
                if p == "hello" and not pc}
        trunc_cases = [({}, n) for n in (1, 7, 50, 333)] + [({"contextLines": 2}, 40),
                                                           ({"includeHidden": True}, 123)]
        envs = [{"verb": "fs.search", "arguments": dict(o, pattern="hello", maxResults=n)}
                for o, n in trunc_cases]
        for (opts, n), res in zip(trunc_cases, run_hermes(corpus, envs)):
            checks += 1
            ref = full[json.dumps(opts, sort_keys=True)]
            if res.get("matches") != ref["matches"][:n] or res.get("truncated") != (len(ref["matches"]) > n):
                failures.append("maxResults %d %s: not the first %d of the full result" % (n, json.dumps(opts), n))
            if res.get("filesSearched") != ref["filesSearched"]:
                failures.append("maxResults %d %s: filesSearched %s, %d without the limit"
                                % (n, json.dumps(opts), res.get("filesSearched"), ref["filesSearched"]))

        # fs.glob "**" lists the files rg --files lists (and their directories).
        glob_opts = [{}, {"includeHidden": True}, {"respectIgnore": False},
                     {"path": "src", "includeHidden": True}]
        envs = [{"verb": "fs.glob", "arguments": dict(o, pattern="**", maxResults=100000)}
                for o in glob_opts]
        for opts, res in zip(glob_opts, run_hermes(corpus, envs)):
            checks += 1
            what = "fs.glob ** %s" % json.dumps(opts)
            if not res.get("succeeded"):
                failures.append("%s: failed: %s" % (what, res.get("errorMessage")))
                continue
            got = sorted(p for p in res["paths"] if not p.endswith("/"))
            want = sorted(rg_files(corpus, opts))
            if got != want:
                failures.append("%s: differs from rg --files: only here %s, only in rg %s"
                                % (what, sorted(set(got) - set(want))[:10],
                                   sorted(set(want) - set(got))[:10]))
    for f in failures:
        print("FAIL: " + f)
    print("%d comparisons with rg over %d matching lines, %d differences"
          % (checks, lines_compared, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
