"""Spelling of table names in C."""
import re


# Names a field cannot have in C: the keywords, and the standard library's macros and globals
# (proc.run's "stdin" field would be the stdio macro). They get a trailing '_' in C only.
C_RESERVED = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while bool true false stdin stdout stderr errno
    environ""".split())


def snake(name):
    """FsReadRangeArgs -> fs_read_range_args; isDirectory -> is_directory; fs.readRange -> fs_read_range;
    stdin -> stdin_ (a C keyword or library macro gets a trailing '_')."""
    s = name.replace(".", "_")
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    s = s.lower()
    return s + "_" if s in C_RESERVED else s


def upper(name):
    return snake(name).upper()


def c_type(type_name):
    return "hermes_%s_t" % snake(type_name)


def c_string(text):
    """A C string literal for text (UTF-8 bytes, escaped)."""
    out = ['"']
    for b in text.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7F:
            out.append(c)
        elif c == "\n":
            out.append("\\n")
        else:
            out.append("\\%03o" % b)
    out.append('"')
    return "".join(out)


def handler(verb_name):
    """The C function that implements a verb: fs.readRange -> hermes_verb_fs_read_range."""
    return "hermes_verb_%s" % snake(verb_name)


def trait_mask(traits):
    """A C expression of HERMES_TRAIT_* bits (core/desc.h) for trait names; 0 for none."""
    return " | ".join("HERMES_TRAIT_%s" % t for t in traits) or "0"
