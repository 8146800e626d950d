"""The model of the verb table: plain data, no text generation."""


class Field:
    """One field of a type. kind: 'string' | 'int32' | 'int64' | 'bool' | 'list'.
    For lists, element is 'string' or a Type. presence: 'required' | 'optional' | 'default'."""

    def __init__(self, name, kind, element, presence, default, description, loc):
        self.name = name
        self.kind = kind
        self.element = element
        self.presence = presence
        self.default = default
        self.description = description
        self.loc = loc
        self.bounds = None  # (min, max) of an integer the verb accepts, if narrower than its type
        self.handle = False  # a HANDLE: a string naming state one Hermes process holds

    @property
    def is_object_list(self):
        return self.kind == "list" and self.element != "string"


class Type:
    def __init__(self, name, description, is_result, loc):
        self.name = name
        self.description = description
        self.is_result = is_result
        self.fields = []
        self.loc = loc

    def nested_types(self):
        """Element types of this type's object lists, in field order."""
        return [f.element for f in self.fields if f.is_object_list]


# The verb traits, in the order of their bits in core/desc.h (HERMES_TRAIT_<name>). What each one
# means is written in the header of defs/verbs.def and in hermes-verbs(7).
TRAITS = ("READ_ONLY", "DESTRUCTIVE", "IDEMPOTENT", "SPAWNS", "LONG", "INSTANT")
# Pairs of traits that no verb may have together.
CONFLICTING_TRAITS = (("READ_ONLY", "DESTRUCTIVE"), ("LONG", "INSTANT"))


class Verb:
    """traits: names from TRAITS, in TRAITS order (empty for NONE)."""

    def __init__(self, name, args, result, traits, description, loc):
        self.name = name
        self.args = args
        self.result = result
        self.traits = traits
        self.description = description
        self.loc = loc


class ErrorCode:
    def __init__(self, name, description, loc):
        self.name = name
        self.description = description
        self.loc = loc


class Table:
    def __init__(self):
        self.common_fields = []   # succeeded, errorMessage, errorCode
        self.types = []           # in declaration order (a list element is declared before use)
        self.verbs = []           # in declaration order
        self.errors = []          # in declaration order; C enum values start at 1

    def type_named(self, name):
        for t in self.types:
            if t.name == name:
                return t
        return None

    def args_types(self):
        """Types reachable from verb arguments (argument types and their nested types)."""
        seen, order = set(), []

        def visit(t):
            if t.name in seen:
                return
            seen.add(t.name)
            for n in t.nested_types():
                visit(n)
            order.append(t)

        for v in self.verbs:
            visit(v.args)
        return order
