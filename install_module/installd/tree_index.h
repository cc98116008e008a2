/*
 * The indexes of one module, all derived from the files in the tree so that
 * `postern-installd --reindex` can always rebuild them after a crash:
 *   - <dir>/<module>-<version>.sha256sum (sha256sum(1) format), written at
 *     install time from the hash of the streamed upload (and of its
 *     signature, a second line), recomputed from the files when missing;
 *   - <dir>/LATEST-IS-<version>, a symlink to the newest release file of
 *     that directory;
 *   - <module>/cache.json in ftpadmin's JSONVERSION 4 shape.
 * Index files are replaced atomically (temporary, fsync, rename, fsync dir).
 */
#ifndef POSTERN_TREE_INDEX_H
#define POSTERN_TREE_INDEX_H

#include <stddef.h>

#include "errmsg.h"

/* One line of a .sha256sum file. */
struct tree_sum {
	const char *file;
	const char *hex;
};

/* Write <module>-<version>.sha256sum in dir_fd: one line per sums[i] (n >= 1). */
int tree_write_sha256sum(int dir_fd, const char *module, const char *version,
			 const struct tree_sum *sums, size_t n, struct pst_err *e);

/* SHA-256 of everything readable from fd (from offset 0) as lowercase hex. */
int tree_hash_fd(int fd, char hex[65], struct pst_err *e);

/* Rebuild every index of module under sources_fd; a missing module is no error. */
int tree_reindex(int sources_fd, const char *module, struct pst_err *e);

#endif
