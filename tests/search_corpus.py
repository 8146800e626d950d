#!/usr/bin/env python3
"""tests/search_corpus.py: makes a tree that exercises everything fs.search must do like rg.

    search_corpus.py DIR [--files N] [--dirs D] [--seed S] [--min-lines A] [--max-lines B]

The tree is a git repository (a .git directory with info/exclude) holding nested .gitignore files
with negation, directory-only, anchored and "**" patterns, a .ignore, a nested repository, hidden
files and directories, binary files, CRLF files, long lines, Unicode text and names, invalid UTF-8,
a byte order mark, files without a final newline, empty files, symlinks, and N filler source files
(default 400) of A to B lines, spread over nested directories (D random ones if given; the
benchmark, bench/search.sh, makes 50000 files this way). The same seed always gives the same tree.
"""
import argparse
import os
import random

WORDS = ("alpha beta gamma delta foo bar baz qux hello world TODO FIXME static int void return "
         "struct const char include define error warning fn let mut impl match self Straße "
         "été ÉTÉ naïve café Σίσυφος 東京 données 12345 0x1F 3.14").split()


def write(root, rel, data):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)


def filler_line(rng):
    kind = rng.random()
    if kind < 0.1:
        return ""
    if kind < 0.2:
        return "#include <%s.h>" % rng.choice(["stdio", "stdlib", "string", "foo", "bar"])
    if kind < 0.3:
        return "fn %s_%d(x: i32) -> i32 { x + %d }" % (rng.choice(WORDS[:8]), rng.randrange(100),
                                                     rng.randrange(1000))
    if kind < 0.35:
        return "    " * rng.randrange(4) + "return %s;" % rng.choice(WORDS)
    n = rng.randrange(1, 14)
    return " ".join(rng.choice(WORDS) for _ in range(n))


def filler(rng, lines):
    return "\n".join(filler_line(rng) for _ in range(lines)) + "\n"


def make(root, files=400, seed=1, lines=(5, 60), ndirs=0):
    rng = random.Random(seed)
    os.makedirs(root, exist_ok=True)
    # The repository: rg reads .gitignore only inside one, and git/info/exclude from it.
    write(root, ".git/HEAD", "ref: refs/heads/main\nhello from .git\n")
    write(root, ".git/info/exclude", "*.excluded\n/exroot.txt\n")
    write(root, ".gitignore",
          "# comment line\n"
          "*.log\n"
          "!important.log\n"
          "build/\n"
          "/anchored.txt\n"
          "docs/**/*.tmp\n"
          "**/cache\n"
          "gen-*\n"
          "\\#hash.txt\n"
          "trailing.txt   \n"
          "*.bak\n"
          "out/**\n"
          "[Tt]emp*/\n"
          "*.{swp,swo}\n")
    write(root, ".ignore", "secret/\n!src/lib/keep.bak\n")
    write(root, "src/.gitignore", "!debug.log\n*.o\n/local-only.txt\ntmp/\n")
    write(root, "src/lib/.gitignore", "!*.bak\nnot-here.c\n")
    write(root, "docs/a/.gitignore", "/b/only-here.md\n!keep.tmp\n")

    texts = {
        "important.log": "hello important log\n",
        "drop.log": "hello dropped log\n",
        "anchored.txt": "hello anchored at the root\n",
        "sub/anchored.txt": "hello anchored below: kept\n",
        "#hash.txt": "hello hash\n",
        "trailing.txt": "hello trailing spaces rule\n",
        "exroot.txt": "hello excluded by info/exclude\n",
        "a.excluded": "hello excluded\n",
        "deep/x/y.excluded": "hello excluded deep\n",
        "gen-parser.c": "hello generated\n",
        "src/gen-lexer.c": "hello generated below\n",
        "build/out.c": "hello build\n",
        "src/build/out.c": "hello build below\n",
        "out/a/b.c": "hello out\n",
        "src/debug.log": "hello debug log re-included below\n",
        "src/x.o": "hello object\n",
        "src/local-only.txt": "hello local only\n",
        "src/deeper/local-only.txt": "hello local only, deeper: kept\n",
        "src/tmp/t.c": "hello tmp dir\n",
        "src/lib/keep.bak": "hello keep bak\n",
        "src/lib/drop.bak": "hello bak whitelisted by src/lib/.gitignore\n",
        "other/drop.bak": "hello bak dropped\n",
        "src/lib/not-here.c": "hello not here\n",
        "docs/a/b/only-here.md": "hello only here\n",
        "docs/only-here.md": "hello not only here\n",
        "docs/a/b/c/x.tmp": "hello tmp doc\n",
        "docs/a/keep.tmp": "hello keep tmp\n",
        "docs/x.tmp": "hello tmp at docs top: kept\n",
        "cache/c.txt": "hello cache\n",
        "src/z/cache/c.txt": "hello cache deep\n",
        "Temp1/t.txt": "hello Temp dir\n",
        "temp2/t.txt": "hello temp dir\n",
        "tempfile.txt": "hello temp file, not a dir: kept\n",
        "x.swp": "hello swap\n",
        "secret/s.txt": "hello secret\n",
        ".env": "hello hidden env\nSECRET=foo\n",
        ".config/settings.txt": "hello hidden dir\n",
        "src/.hidden.c": "hello hidden c\n",
        "vendor/.git/HEAD": "hello vendor git\n",
        "vendor/.gitignore": "*.gen\n",
        "vendor/lib.log": "hello vendor log: the outer *.log stops at vendor/.git\n",
        "vendor/x.gen": "hello vendor gen\n",
        "vendor/secret/s.txt": "hello vendor secret: .ignore reaches into vendor\n",
        "crlf.txt": "hello crlf\r\nsecond line\r\nfoo$ at end\r\n\r\nlast hello\r\n",
        "noeol.txt": "hello\nno final newline hello",
        "empty.txt": "",
        "blank-lines.txt": "\n\n\nhello after blanks\n\n",
        "unicode/ünïcödé.txt": "Straße und STRASSE\nÉTÉ été Été\nΣίσυφος σίσυφος\n東京 tokyo\n"
                               "naïve café\nemoji 😀 hello\n",
        "name with spaces.txt": "hello spaces in the name\n",
        "src/main.c": "#include <stdio.h>\n\nint main(void)\n{\n\tprintf(\"hello world\\n\");\n"
                      "\treturn 0;\n}\n",
        "src/lib/util.rs": "fn helper(x: i32) -> i32 {\n    x * 2\n}\n\nfn main() { helper(3); }\n",
        "special.txt": "a.b matches a.b literally, axb only as a regex\nf(x) = (x) + 1\n",
        "bom.txt": "\ufeffhello with a byte order mark\nsecond hello\n",
    }
    for rel, text in texts.items():
        write(root, rel, text)
    # Bytes that are not UTF-8, without NUL: searched, shown with U+FFFD.
    write(root, "latin1.txt", b"caf\xe9 hello\nna\xefve\n\xff\xfe hello bytes\n")
    # Binary: a NUL in the first 8 KiB.
    write(root, "bin/image.png", b"\x89PNG\r\n\x1a\n\x00\x00hello inside binary\n")
    write(root, "bin/data.bin", b"hello\n" * 100 + b"\x00" + b"hello\n" * 10)
    # Long lines, with matches early, in the middle and late.
    long_line = "".join(rng.choice("abcdefghij ") for _ in range(6000))
    write(root, "long/lines.txt",
          "hello early " + long_line + "\n"
          + long_line[:3000] + " hello middle " + long_line[3000:] + "\n"
          + long_line + " hello late\n"
          + "short hello\n")
    # Symlinks: neither rg (without -L) nor fs.search follow or search them.
    os.symlink("src/main.c", os.path.join(root, "link-to-main.c"))
    os.symlink("src", os.path.join(root, "link-to-src"))
    os.symlink("/etc/passwd", os.path.join(root, "link-outside"))

    dirs = ["src", "src/lib", "src/lib/deep", "src/app/views", "tests", "tests/unit", "docs/a",
            "docs/a/b", "tools", "pkg/a/b/c", "pkg/d", "web/static/js", "web/templates"]
    for _ in range(ndirs):
        # A tree like a project's: each new directory goes under an existing one.
        parent = rng.choice(dirs)
        dirs.append("%s/d%d" % (parent, len(dirs)) if parent.count("/") < 6 else "m%d" % len(dirs))
    exts = [".c", ".h", ".rs", ".py", ".js", ".txt", ".md"]
    # Big trees reuse a pool of bodies: the searcher reads every byte either way.
    pool = [filler(rng, rng.randrange(*lines)) for _ in range(min(files, 2000))]
    for i in range(files):
        d = rng.choice(dirs)
        name = "%s/f%05d%s" % (d, i, rng.choice(exts))
        write(root, name, pool[i] if i < len(pool) else rng.choice(pool))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=400)
    ap.add_argument("--dirs", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-lines", type=int, default=5)
    ap.add_argument("--max-lines", type=int, default=60)
    a = ap.parse_args()
    make(a.dir, a.files, a.seed, (a.min_lines, a.max_lines), a.dirs)


if __name__ == "__main__":
    main()
