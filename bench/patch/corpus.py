#!/usr/bin/env python3
# bench/patch/corpus.py: a corpus of edits shaped like the mistakes models make, each with the
# right result, generated deterministically (same cases on every run) from four small source
# files (Python with 4-space indentation, C with tabs, JavaScript with 2 spaces, prose with
# quotes and dashes). Each case is one file, a patch in one of the three formats fs.applyPatch
# reads (apply_patch, unified, search_replace) and either the file as it must be afterwards or
# REFUSE (the only right answer is a refusal that says why). Kinds of mistake:
#   exact          no mistake (the control)
#   trailing_file  the file has trailing blanks on the lines the patch quotes without them
#   trailing_patch the patch has trailing blanks the file lacks
#   crlf           the file has CRLF line endings, the patch LF
#   tabs_spaces    the file is indented with tabs, the patch with 4 spaces
#   shift          the patch's block is indented 4 columns less than the file's
#   lookalike      the patch's quoted lines have curly quotes and en dashes for ' " -
#   combined       CRLF, trailing blanks in the file, and spaces for the file's tabs in the patch
#   no_final_nl    the last line is edited in a file without a final newline
#   stale          a context line in the patch no longer is in the file (REFUSE)
#   stale_removed  the line the patch removes is remembered wrong (REFUSE)
#   ambiguous      the block occurs twice in the file and nothing says which (REFUSE; in a
#                  unified diff the hunk's right line numbers say which)
#   tolerant_ambiguous  the block occurs twice and the patch has trailing blanks the file
#                  lacks: two tolerant matches, which line numbers never choose between (REFUSE)
#   wrong_hint     a unified diff's hunk line numbers are off by 15
#   wrong_counts   a unified diff's hunk line counts are off by 2
#   dup_hint       the block occurs twice, a unified diff's line numbers name the second
# Usage: corpus.py OUTDIR   (writes OUTDIR/<case>/{file,patch,format,expected|REFUSE,name})
import os
import random
import sys

PY = ['import os', '', '', 'class Store:', '    """Keeps items by key."""', '',
      '    def __init__(self, root):', '        self.root = root', '        self.items = {}',
      '        self.count = 0', '']
for i in range(8):
    PY += ['    def get_%d(self, key):' % i, '        if key not in self.items:',
           '            raise KeyError("missing key %d: " + key)' % i,
           "        value = self.items[key]  # '%d'" % i, '        self.count += %d' % (i + 1),
           '        return value * %d' % (i + 2), '']
PY += ['', 'def main():', '    s = Store("/tmp")', '    print(s.get_1("a"))']

C = ['#include <stdio.h>', '', 'static int total;', '']
for i in range(8):
    C += ['int step_%d(int x)' % i, '{', '\tif (x > %d) {' % i, '\t\ttotal += x;',
          '\t\tprintf("step %d: %%d\\n", x);' % i, '\t\treturn x - %d;' % i, '\t}',
          '\treturn x + %d;' % (i * 3), '}', '']
C += ['int main(void)', '{', '\treturn step_1(3);', '}']

JS = ['"use strict";', '', 'const config = {']
for i in range(8):
    JS += ["  item%d: {" % i, "    name: 'item-%d'," % i, '    size: %d,' % (i * 10),
           "    label: \"Item %d\"," % i, '  },']
JS += ['};', '', 'function show(key) {', '  const item = config[key];', '  return item.label;', '}']

MD = ['# Notes', '']
for i in range(10):
    MD += ['## Part %d' % i, '',
           'The "part %d" text - it says what it\'s for.' % i,
           "Don't change part %d's meaning - only its words." % i, '']

BASES = [('store.py', PY, '  # edited'), ('steps.c', C, ' /* edited */'),
         ('config.js', JS, ' // edited'), ('notes.md', MD, ' (edited)')]
FORMATS = ['apply_patch', 'unified', 'search_replace']


def window_unique(lines, a, b):
    w = lines[a:b]
    n = sum(1 for i in range(len(lines) - len(w) + 1) if lines[i:i + len(w)] == w)
    return n == 1


def make_patch(fmt, path, win, start, hint=None):
    """win: (kind, text) lines; start: 1-based first line of the block in the old file."""
    old = [t for k, t in win if k != '+']
    new = [t for k, t in win if k != '-']
    if fmt == 'apply_patch':
        body = ''.join('%s%s\n' % (k, t) for k, t in win)
        return '*** Begin Patch\n*** Update File: %s\n@@\n%s*** End Patch\n' % (path, body)
    if fmt == 'unified':
        s = hint if hint is not None else start
        body = ''.join('%s%s\n' % (k, t) for k, t in win)
        return '--- a/%s\n+++ b/%s\n@@ -%d,%d +%d,%d @@\n%s' % (path, path, s, len(old), s,
                                                               len(new), body)
    return '%s\n```\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n```\n' % (
        path, ''.join(t + '\n' for t in old), ''.join(t + '\n' for t in new))


def lookalike(t):
    out, dq = [], False
    for ch in t:
        if ch == '"':
            out.append('\u201d' if dq else '\u201c')
            dq = not dq
        elif ch == "'":
            out.append('\u2019')
        else:
            out.append(ch)
    return ''.join(out).replace(' - ', ' \u2013 ')


def cases():
    rnd = random.Random(25)
    for path, lines, suffix in BASES:
        edit_lines = [i for i, t in enumerate(lines) if t.strip() and 2 <= i < len(lines) - 2]
        picks = rnd.sample(edit_lines, 5)
        for kind in ['exact', 'trailing_file', 'trailing_patch', 'crlf', 'tabs_spaces', 'shift',
                     'lookalike', 'combined', 'no_final_nl', 'stale', 'stale_removed',
                     'ambiguous', 'tolerant_ambiguous', 'wrong_hint', 'wrong_counts', 'dup_hint']:
            for fmt in FORMATS:
                if kind in ('wrong_hint', 'dup_hint', 'wrong_counts') and fmt != 'unified':
                    continue
                base = lines
                if kind == 'no_final_nl':  # the last line of text is the one edited
                    while not base[-1]:
                        base = base[:-1]
                for n, k in enumerate(picks if kind != 'no_final_nl' else [len(base) - 1]):
                    c = build(kind, fmt, path, base, suffix, k, rnd)
                    if c:
                        c['name'] = '%s-%s-%s-%d' % (kind, fmt, path.replace('.', '_'), n)
                        yield c


def build(kind, fmt, path, lines, suffix, k, rnd):
    lines = list(lines)
    if kind == 'tabs_spaces' and not any(t.startswith('\t') for t in lines[k - 2:k + 3]):
        return None
    if kind == 'shift' and any(t and not t.startswith('    ') for t in lines[k - 2:k + 3]):
        return None
    if kind == 'lookalike' and not any(ch in t for t in lines[k - 2:k + 3] for ch in '"\''):
        return None
    a, b = max(0, k - 2), min(len(lines), k + 3)
    if kind in ('ambiguous', 'dup_hint', 'tolerant_ambiguous'):
        lines = lines + ['', '# again'] + lines[a:b]  # the block occurs a second time
    elif not window_unique(lines, a, b):
        return None
    file_lines = list(lines)
    if kind in ('trailing_file', 'combined'):
        file_lines = [t + '   ' if a <= i < b and t else t for i, t in enumerate(file_lines)]
    target = k if kind != 'dup_hint' else len(lines) - (b - a) + (k - a)
    wa = target - (k - a)
    new_line = lines[k] + suffix
    win = []
    for i in range(a, b):
        t = lines[i]
        if i == k:
            win += [('-', t), ('+', new_line)]
        else:
            win.append((' ', t))
    def old_side(f):
        return [(kk, f(t)) if kk != '+' else (kk, t) for kk, t in win]
    if kind in ('trailing_patch', 'tolerant_ambiguous'):
        win = [(kk, t + '  ' if kk != '+' and t else t) for kk, t in win]
    elif kind == 'combined':  # CRLF, trailing blanks in the file, spaces for tabs in the patch
        win = [(kk, t.replace('\t', '    ')) for kk, t in win]
    elif kind == 'tabs_spaces':
        win = [(kk, t.replace('\t', '    ')) for kk, t in win]
    elif kind == 'shift':
        win = [(kk, t[4:] if t.startswith('    ') else t) for kk, t in win]
    elif kind == 'lookalike':
        win = old_side(lookalike)
    elif kind == 'stale':
        ctx = [j for j, (kk, t) in enumerate(win) if kk == ' ' and t.strip()]
        if not ctx:
            return None
        j = ctx[0]
        win[j] = (' ', win[j][1] + ' stale')
    elif kind == 'stale_removed':  # the line to remove is remembered wrong
        j = [jj for jj, (kk, t) in enumerate(win) if kk == '-'][0]
        win[j] = ('-', win[j][1].replace('e', 'a', 1) if 'e' in win[j][1] else win[j][1] + ';')
    hint = None
    if kind == 'wrong_hint':
        hint = max(1, a + 1 + (15 if a < 20 else -15))
    if kind == 'dup_hint':
        hint = wa + 1
    patch = make_patch(fmt, path, win, a + 1, hint)
    if kind == 'wrong_counts':  # the hunk header's counts are off by two
        first, rest = patch.split('@@ -', 1)
        nums, body = rest.split(' @@', 1)
        o, n = nums.split(' +')
        o = o.split(',')[0] + ',' + str(int(o.split(',')[1]) + 2)
        n = n.split(',')[0] + ',' + str(int(n.split(',')[1]) + 2)
        patch = first + '@@ -' + o + ' +' + n + ' @@' + body
    eol = '\r\n' if kind in ('crlf', 'combined') else '\n'
    final = '' if kind == 'no_final_nl' else eol
    before = eol.join(file_lines) + final
    if kind in ('stale', 'stale_removed', 'tolerant_ambiguous') or \
            (kind == 'ambiguous' and fmt != 'unified'):
        # (a unified diff's line numbers, right here, choose among the exact matches)
        expected = None
    else:
        after = list(file_lines)
        after[target] = new_line
        expected = eol.join(after) + final
    return {'path': path, 'file': before, 'patch': patch, 'format': fmt, 'expected': expected,
            'kind': kind}


def write(outdir):
    n = 0
    for c in cases():
        d = os.path.join(outdir, c['name'])
        os.makedirs(d, exist_ok=True)
        for name in ('path', 'file', 'patch', 'format', 'kind'):
            with open(os.path.join(d, name), 'w', newline='') as f:
                f.write(c[name])
        if c['expected'] is None:
            open(os.path.join(d, 'REFUSE'), 'w').close()
        else:
            with open(os.path.join(d, 'expected'), 'w', newline='') as f:
                f.write(c['expected'])
        n += 1
    return n


if __name__ == '__main__':
    print(write(sys.argv[1]), 'cases written to', sys.argv[1])
