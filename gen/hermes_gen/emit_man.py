"""Emits doc/hermes-verbs.7: the manual of every verb, its traits, arguments, result fields and
error codes, written from the table itself so that the manual cannot disagree with what hermes runs."""
from .model import TRAITS

# What each trait means (the same words as the header of defs/verbs.def), in TRAITS order.
TRAIT_MEANINGS = {
    "READ_ONLY": "Changes nothing: creates, changes or removes no file, directory or process.",
    "DESTRUCTIVE": "May delete or overwrite data that existed before the call.",
    "IDEMPOTENT": "A second call with the same arguments, nothing else having changed in between, "
                  "leaves the workspace as the first one did (its result may differ, e.g. NotFound), "
                  "so a client may retry it after a lost reply.",
    "SPAWNS": "Runs another program, which may do anything the user may.",
    "LONG": "May take seconds or more: its time grows with the size of a file or tree, or is a "
            "program's run time. hermes serve runs it on workers of its own, so that quick requests "
            "are not held up behind it.",
    "INSTANT": "Takes a few system calls whatever the size of any file or tree. hermes serve may run "
               "it on the thread that reads the requests when nothing else is in flight, which spares "
               "a request sent alone two hand-offs between threads.",
}
assert tuple(TRAIT_MEANINGS) == TRAITS, "every trait needs its meaning in the manual"


def trait_word(name):
    """READ_ONLY -> read-only: the word the IDL (core/idl.c) and this manual use."""
    return name.lower().replace("_", "-")


def traits_text(traits):
    return ", ".join(trait_word(t) for t in traits) if traits else "none"


SCALAR_NAMES = {"string": "string", "int32": "32-bit integer", "int64": "64-bit integer",
                "bool": "boolean"}


def roff(text):
    """Escapes text for a roff line: backslashes, and a leading '.' or "'" (control characters)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text[:1] in (".", "'"):
        text = "\\&" + text
    return text


def range_text(f):
    """The values an integer field accepts, in words, if narrower than its type (else None): the
    same words as the decoder's message and the IDL."""
    if not f.bounds:
        return None
    lo, hi = f.bounds
    tlo, thi = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}[f.kind]
    if hi >= thi:
        return "%d or more" % lo
    if lo <= tlo:
        return "at most %d" % hi
    return "%d to %d" % (lo, hi)


def type_name(f):
    if f.kind == "list":
        return "list of strings" if f.element == "string" else "list of %s" % f.element.name
    if range_text(f):
        return "%s, %s" % (SCALAR_NAMES[f.kind], range_text(f))
    return SCALAR_NAMES[f.kind]


def presence(f):
    if f.presence == "default":
        d = f.default
        if isinstance(d, bool):
            d = "true" if d else "false"
        elif isinstance(d, str):
            d = '"%s"' % d
        return "default %s" % d
    return f.presence


def fields_block(fields):
    out = []
    for f in fields:
        out.append(".TP")
        # Inside a quoted macro argument a double quote is written twice (a string default).
        out.append('.BR %s " (%s, %s)"' % (f.name, roff(type_name(f)),
                                          roff(presence(f)).replace('"', '""')))
        out.append(roff(f.description))
    return out


def nested(t, seen):
    """Object types used by t's lists, depth first, each once."""
    found = []
    for f in t.fields:
        if f.is_object_list and f.element.name not in seen:
            seen.add(f.element.name)
            found.append(f.element)
            found.extend(nested(f.element, seen))
    return found


INTRO = r""".TH HERMES\-VERBS 7 "" "Hermes" "Hermes Manual"
.nh
.SH NAME
hermes\-verbs \- the verbs Hermes performs, their arguments, results and error codes
.SH DESCRIPTION
Every request to Hermes is an
.I envelope
naming a verb and giving its arguments, as YAML or as JSON:
.PP
.RS
.nf
verb: fs.readRange
arguments:
  path: src/main.c
  startLine: 1
  endLine: 20

{"verb": "fs.readRange",
 "arguments": {"path": "src/main.c", "startLine": 1, "endLine": 20}}
.fi
.RE
.PP
Verb names are matched without regard to case; argument names are matched exactly.
An unknown, missing or mistyped argument fails the whole envelope with
.BR InvalidArguments ,
and no verb runs.
Integers are decimal; booleans are
.B true
or
.BR false .
Paths are relative to the workspace root (an absolute path is accepted only inside it), and
lines are numbered from 1.
.PP
YAML and JSON follow one rule for values, the stricter one: every value must have the type of
its field.
In YAML a quoted scalar is a string, and a plain one is what the YAML 1.2 core schema makes of it:
.BR null ,
.B ~
or nothing is null;
.B true
and
.B false
are booleans (so are
.BR True ,
.B FALSE
and their like, which no field takes);
a decimal integer is an integer (so
.B 0123
is a number, not the string
.BR \(dq0123\(dq );
any other number (1.0, 1e3, 0x10, .inf) is a number no field takes; the rest is text
.RB ( "content: no"
is the string
.BR \(dqno\(dq ).
So
.B "path: 5"
fails as
.B \(dqpath\(dq: 5
does, and
.B "startLine: \(dq5\(dq"
as
.B \(dqstartLine\(dq: \(dq5\(dq
does; quote a string that looks like something else.
A null optional argument is absent; a null required one fails.
YAML tags (\fB!!str\fR, \fB!custom\fR) and aliases are refused, and so is a lone UTF\-16
surrogate (\fB\e\&ud800\fR) in either language.
.PP
Strings are text: a NUL character (JSON
.BR \eu0000 )
in any string argument \(em a path, a verb name, an executable, a program argument or file
content \(em fails the envelope with
.B InvalidArguments
naming the field, through every interface, so a name is never silently cut short at the NUL.
Files holding NUL bytes are binary to Hermes: reading one as text fails with
.BR NotText .
.PP
The result is one JSON object: the verb's own fields followed by the common fields below.
A failed verb has
.B succeeded
false, an
.B errorCode
and an
.BR errorMessage ;
its own fields are then absent unless the verb says otherwise.
.PP
This page is generated from the verb table (defs/verbs.def and defs/errors.def) that the
executor itself is compiled from;
.B hermes schema
.I VERB
prints the same information in the schema IDL.
.SH COMMON RESULT FIELDS
Every result ends with these fields.
"""

PROGRAMS = r""".SH PROGRAMS THAT KEEP RUNNING
.B proc.run
waits for its program to end.
A dev server, a test watcher or a REPL is started with
.B proc.start
instead, and then worked with by its
.IR id ,
a handle Hermes makes up
.RB ( p3\-1f9a0c ,
not the pid):
.PP
.RS
.nf
proc.start  {executable: python3, arguments: [\-m, http.server, "0"],
             waitFor: "Serving HTTP"}     \-> id, pid, matched, stdout, next
proc.output {id: ID, waitSeconds: 10}     \-> the new stdout and stderr, next
proc.write  {id: ID, text: "print(6*7)\en"} (a REPL started with tty: true)
proc.stop   {id: ID}                      \-> exitCode; the id is forgotten
proc.list   {}                            \-> every program and its state
.fi
.RE
.PP
The program belongs to the Hermes process that started it
.RB ( "hermes serve" ,
.BR "hermes mcp" ,
the console, or a libhermes executor), not to one client, connection or workspace: every client
of that server may use its id, also after an MCP client's roots changed the workspace.
It ends when
.B proc.stop
stops it, at its
.BR timeoutSeconds ,
or when Hermes ends however it ends (shutdown, end of input, a signal, even
.BR "kill \-9" ,
through its supervisor's death signal), and everything it started ends with it.
.B "hermes exec"
runs one batch and exits, so it refuses
.B proc.start
.RB ( NotAllowed ).
At most
.B \-\-max\-processes
(16) run at once; past it
.B proc.start
fails with
.BR LimitReached .
An ended program stays listed, with its exit code and output, until
.B proc.stop
collects it (or, past as many ended ones as that limit, the oldest is collected).
.PP
Output is one stream of bytes numbered from 0 in the order they came, each from standard output
or standard error; answers give the two apart, as
.B stdout
and
.BR stderr ,
and
.B next
is the offset to continue from (without
.BR since ,
.B proc.output
continues from where the previous one stopped).
The last 1 MiB of each program's output is kept in memory and nothing on disk; what the program
wrote past that before it was read is reported in
.BR droppedBytes .
Hermes reads the output all the time, so a chatty program never blocks on a full pipe.
.B waitSeconds
makes
.B proc.output
wait for new output and answer as soon as some comes, so an agent can poll without a busy loop.
With
.BR tty ,
the program runs under a pseudo\-terminal (for REPLs and programs that buffer unless they write
to a terminal): everything it writes comes as
.BR stdout ,
with the terminal's echo and
.B \er\en
line endings.
.PP
A running
.BR proc.run 's
progress notifications (MCP) carry the program's latest line of output as their message, at most
ten a second.
"""

OUTRO = r""".SH FILES
.TP
.IB DIR /. NAME . PID . XXXXXXXX .hermes\-tmp
The new content of
.IR DIR / NAME
while a write replaces it (or, where the file system has no unnamed temporary files, while it is
written): fsynced, then renamed over
.IR NAME .
A write killed at that moment leaves it behind.
The next write that names such a file in
.I DIR
first removes the ones whose process
.I PID
is gone and that nothing has touched for a minute; a directory is looked at once every ten
minutes at most.
No other file is ever removed this way.
.TP
.B .hermes/runs/
The output files of
.BR proc.run ,
.IB TIME \- PID \- N .stdout
and
.BR .stderr ,
in the workspace.
Each run that starts removes the oldest finished runs beyond the newest 100, any older than seven
days, and as many more as it takes to bring their sizes under
.B \-\-runs\-max\-bytes
(2 GiB; the newest run stays whatever its size); the files of a program still running, in any
Hermes, are never removed (they are held with an open file description lock).
.B .hermes/.gitignore
keeps the directory out of git.
.SH EXIT STATUS
See
.BR hermes (1):
0 when every envelope succeeded, 1 when a verb failed, 2 when an envelope could not be decoded.
.SH SEE ALSO
.BR hermes (1)
"""


def emit(table):
    out = [INTRO.rstrip("\n")]
    out.extend(fields_block(table.common_fields))
    out.append(".SH TRAITS")
    out.append("Each verb declares its traits beside it in the table.")
    out.append(".B hermes schema")
    out.append("prints them on the first line of a verb's IDL")
    out.append("(\\fB// traits: read\\-only, idempotent\\fR, or \\fB// traits: none\\fR),")
    out.append("and whatever treats verbs differently (the scheduling of")
    out.append('.BR "hermes serve" ,')
    out.append("for one) goes by their traits, never by their names.")
    for t in TRAITS:
        out.append(".TP")
        out.append(".B %s" % roff(trait_word(t)))
        out.append(roff(TRAIT_MEANINGS[t]))
    out.append(".SH VERBS")
    out.append(".PP")
    out.append("Hermes knows %d verbs: %s." % (
        len(table.verbs), ", ".join("\\fB%s\\fR" % v.name for v in table.verbs)))
    for v in table.verbs:
        out.append(".SS %s" % v.name)
        out.append(roff(v.description))
        out.append(".PP")
        out.append(".I Traits:")
        out.append("%s." % roff(traits_text(v.traits)))
        out.append(".PP")
        out.append(".I Arguments")
        out.append("(%s): %s" % (v.args.name, roff(v.args.description)))
        if v.args.fields:
            out.extend(fields_block(v.args.fields))
        else:
            out.append("None: the arguments may be omitted or empty.")
        out.append(".PP")
        out.append(".I Result")
        out.append("(%s): %s" % (v.result.name, roff(v.result.description)))
        if v.result.fields:
            out.extend(fields_block(v.result.fields))
        else:
            out.append("Only the common fields.")
        seen = set()
        for t in nested(v.args, seen) + nested(v.result, seen):
            out.append(".PP")
            out.append(".I %s" % t.name)
            out.append(": %s" % roff(t.description))
            out.extend(fields_block(t.fields))
    out.append(PROGRAMS.rstrip("\n"))
    out.append(".SH ERROR CODES")
    out.append("The words a failed result carries in")
    out.append(".BR errorCode .")
    out.append("They are stable: new codes may be added, none is renamed or reused.")
    for e in table.errors:
        out.append(".TP")
        out.append(".B %s" % e.name)
        out.append(roff(e.description))
    out.append(OUTRO.rstrip("\n"))
    return "\n".join(out) + "\n"
