"""hermes_gen: the Hermes build-time generator.

parse.py reads the .def files into the model (model.py) and validates it; each emit_*.py turns
the model into one output text. Nothing here writes files: the build redirects stdout.
"""
import argparse
import os
import sys

from . import (emit_descriptors_c, emit_handlers_h, emit_json_schema_c, emit_man,
               emit_registry_c, emit_types_h, emit_yaml_schema_c)
from .parse import DefError, load_table

EMITTERS = {
    "types-h": emit_types_h.emit,
    "descriptors-c": emit_descriptors_c.emit,
    "yaml-schema-c": emit_yaml_schema_c.emit,
    "handlers-h": emit_handlers_h.emit,
    "registry-c": emit_registry_c.emit,
    "json-schema-c": emit_json_schema_c.emit,
    "man-verbs": emit_man.emit,
}


def main(argv, emitters):
    ap = argparse.ArgumentParser(prog="hermes-gen", description="Compile the Hermes verb table.")
    ap.add_argument("--defs", required=True, help="directory holding verbs.def and errors.def")
    ap.add_argument("output", choices=sorted(emitters), help="what to emit on stdout")
    args = ap.parse_args(argv)
    try:
        table = load_table(os.path.join(args.defs, "verbs.def"), os.path.join(args.defs, "errors.def"))
    except DefError as e:
        print(str(e), file=sys.stderr)
        return 1
    except OSError as e:
        print("hermes-gen: error: %s" % e, file=sys.stderr)
        return 1
    sys.stdout.write(emitters[args.output](table))
    return 0
