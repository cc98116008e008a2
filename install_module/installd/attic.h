/*
 * The attic: where released files go instead of being unlinked.
 * <state>/attic/<module>/<UTC time>.<pid>/<file>, one directory per event
 * (a delete-own, or the old files of a --force install).
 */
#ifndef POSTERN_ATTIC_H
#define POSTERN_ATTIC_H

#include <stddef.h>

#include "errmsg.h"

/*
 * Create the event directory for module under attic_fd; rel gets its path
 * relative to <state> ("attic/gtk/20261203T064000Z.4242"). Returns its fd.
 */
int attic_event_open(int attic_fd, const char *module, char *rel, size_t rellen,
		     struct pst_err *e);

/*
 * Open the event directory a record names (its attic field, as
 * attic_event_open wrote it in rel) again. -errno when it is not one.
 */
int attic_event_reopen(int attic_fd, const char *module, const char *rel);

/*
 * Move from_fd/name into event_fd. A rename when both are on one
 * filesystem; otherwise a copy that is fsynced before the original is
 * removed, so the file exists in at least one place at every moment. The
 * copy keeps the original's mode, atime and mtime: the same file either way.
 */
int attic_move(int from_fd, const char *name, int event_fd, struct pst_err *e);

#endif
