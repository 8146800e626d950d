# src/proc: the process mechanisms the verb handlers stand on: running a program under a
# supervisor that lets nothing of it outlive its run, in the Landlock sandbox (spawn.h), with a
# cgroup v2 per run where the machine allows (cgroup.h); which
# program a request names and its environment (program.h); the bounded output files of a run
# in .hermes/runs (runfiles.h); the table of programs that keep running, proc.start's
# (started.h); the latest line of a program's output, for progress messages (lastline.h); the
# private temporary directory of a program Hermes starts on its own (tmpdir.h); what gone Hermes
# processes left, swept (leftovers.h).
# Built into libhermes_proc.la; depends on src/core and src/fs only.
noinst_LTLIBRARIES += libhermes_proc.la
libhermes_proc_la_SOURCES = \
	src/proc/spawn.c src/proc/spawn.h \
	src/proc/cgroup.c src/proc/cgroup.h \
	src/proc/program.c src/proc/program.h \
	src/proc/runfiles.c src/proc/runfiles.h \
	src/proc/started.c src/proc/started.h \
	src/proc/lastline.c src/proc/lastline.h \
	src/proc/tmpdir.c src/proc/tmpdir.h \
	src/proc/leftovers.c src/proc/leftovers.h
