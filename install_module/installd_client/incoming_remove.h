/*
 * Removing one entry of the maintainer's own incoming directory, whatever
 * rsync left there: a file, a symlink, or a directory tree. Runs as the
 * maintainer, inside postern-shell.
 */
#ifndef POSTERN_INCOMING_REMOVE_H
#define POSTERN_INCOMING_REMOVE_H

#include "errmsg.h"

/* Directory levels below the entry that are removed; deeper trees are refused. */
#define INCOMING_REMOVE_DEPTH 64

/*
 * Remove name (one path component) from the directory dirfd, directories
 * recursively. Every name is resolved relative to a directory fd opened
 * with O_NOFOLLOW and checked to be the directory that was looked at: a
 * symlink is removed as a link, never followed, so nothing outside the
 * entry can be touched, whatever is swapped in meanwhile. Returns 0,
 * -ENOENT when there is no such entry, or -errno with e filled (what is
 * left of the entry then stays, and the user can try again).
 */
int incoming_remove(int dirfd, const char *name, struct pst_err *e);

#endif
