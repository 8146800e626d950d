"""Spelling of table names in C."""
import re


def snake(name):
    """FsReadRangeArgs -> fs_read_range_args; isDirectory -> is_directory; fs.readRange -> fs_read_range."""
    s = name.replace(".", "_")
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


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
