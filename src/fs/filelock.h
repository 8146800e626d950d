/* fs/filelock.h: one writer at a time per file, and the version token that tells an agent whether
 * a file changed since it read it.
 *
 * Every read-modify-write of Hermes (fs.editFile, fs.writeRange, and fs.writeFile over an
 * existing file) runs under an exclusive flock(2) on the file it read. flock locks belong to the
 * open file description, so they exclude threads of one process (each opens its own) as well as
 * other processes, and they need no write permission on the file. Because a write replaces the
 * file by a rename, the inode that was locked can stop being the file: after taking the lock the
 * name is looked up again, and if it now names another inode the lock is dropped and taken on
 * that one. So a writer always reads the version the previous writer put in place.
 *
 * A program that writes without the lock (an editor) is caught after the exchange that puts the
 * new version in place (atomic.h): if what came out is not the inode that was read, with the same
 * size and modification time, it is exchanged back, nothing is committed (HERMES_WS_ECHANGED) and
 * the verb starts over. fs.deleteFile and fs.moveFile take the lock too. */
#ifndef HERMES_FS_FILELOCK_H
#define HERMES_FS_FILELOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include <hermes/hermes.h>

/* The file changed between the read and the commit (by a writer that does not lock). */
#define HERMES_WS_ECHANGED (-100006)
/* Another writer held the file's lock for longer than HERMES_FILE_LOCK_WAIT_MS. */
#define HERMES_WS_ELOCKED (-100007)
#define HERMES_FILE_LOCK_WAIT_MS 60000

/* Opens name in dirfd (no symlink followed) for reading and locks it as above. On success *fd is
 * the locked descriptor (close it to unlock) and *st its status once locked. A name that is not a
 * regular file is opened and described but not locked (the caller refuses it). 0, -errno,
 * HERMES_WS_ELOCKED, or HERMES_WS_ECANCELLED (cancel, which may be NULL, was requested). */
int hermes_file_lock(int dirfd, const char *name, const hermes_cancel_t *cancel, int *fd,
                     struct stat *st);

/* Takes the exclusive flock of fd (any open file: a file or a directory) as hermes_file_lock()
 * does, without looking at names. 0, -errno, HERMES_WS_ELOCKED or HERMES_WS_ECANCELLED. */
int hermes_file_lock_fd(int fd, const hermes_cancel_t *cancel);

/* The few microseconds in which a writer exchanges its new file with the one at a name and checks
 * what came out (atomic.c, commit.c) are serialised per directory by a flock of the directory:
 * two Hermes writers that locked different inodes of one name (a writer that takes no lock
 * replaced the file between their locks) then cannot interleave their exchanges and swaps back.
 * Nothing else locks a directory. Returns the descriptor to pass to hermes_dir_section_leave(),
 * or -1 if the directory cannot be locked (the section then runs unserialised). */
int hermes_dir_section_enter(int dirfd);
void hermes_dir_section_leave(int fd);

/* Does name in dirfd still name the file st described, unchanged (inode, size, modification
 * time)? */
bool hermes_file_unchanged(int dirfd, const char *name, const struct stat *st);

/* The version token of a regular file: "<mtime seconds>.<nanoseconds>-<size>-<inode in hex>".
 * Any write by Hermes gives the file a new inode, and any other write changes its modification
 * time or size (within the file system's clock tick). Written to out (NUL-terminated). */
#define HERMES_FILE_VERSION_MAX 64
void hermes_file_version(const struct stat *st, char out[HERMES_FILE_VERSION_MAX]);

/* hermes_file_version() malloc'd; NULL if out of memory. */
char *hermes_file_version_dup(const struct stat *st);

#endif
