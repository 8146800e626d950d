/* fs/mapguard.h: touching a file's read-only mapping without dying of SIGBUS when the file is cut
 * short meanwhile: a process-wide SIGBUS handler, installed only by a program that asks for it
 * (hermes exec), and per-thread arming around the code that reads the mapping. */
#ifndef HERMES_FS_MAPGUARD_H
#define HERMES_FS_MAPGUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Installs the SIGBUS handler, once, process-wide; later calls do nothing. A library must not
 * take a signal from its host unasked: nothing in libhermes calls this, and until a program
 * does, hermes_map_guard_on() is false and readers use read(2). The handler passes a SIGBUS
 * at an address outside every armed mapping to the action that was there before (by default:
 * the process dies, as it would have). 0, or -errno. Not thread-safe: call it before threads. */
int hermes_map_guard_install(void);

/* Whether hermes_map_guard_install() succeeded: only then may hermes_map_guard_run() be used. */
bool hermes_map_guard_on(void);

/* Calls fn(arg) with [map, map + len) armed on this thread: a SIGBUS there (the mapped file was
 * cut short) leaves fn at once. True if fn returned, false if it was left so: whatever fn had
 * changed through arg stays as it was then; fn must hold no lock or allocation a jump would leak.
 * Not nested. */
bool hermes_map_guard_run(const void *map, size_t len, void (*fn)(void *arg), void *arg);

#endif
