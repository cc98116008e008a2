/*
 * A transparency log kept as files under one directory (the tree's log/):
 * the tiles and entry bundles of tlog_tile.h, written and read relative to
 * a directory fd, never through a path that could hold a symlink.
 *
 * Appending writes the new entry bundles and hash tiles, each atomically
 * (sf_write_atomic), and answers the new root; the caller then signs and
 * writes the checkpoint, so a crash in between leaves tiles past the
 * checkpoint that the next append simply rewrites. Superseded partial tiles
 * are left in place (nothing in the tree is unlinked); readers fall back to
 * the full tile's prefix when a partial one is missing, as tlog-tiles
 * clients do.
 */
#ifndef POSTERN_TLOG_DIR_H
#define POSTERN_TLOG_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "safefile.h"
#include "tlog.h"
#include "tlog_tile.h"

struct tlog_dir {
	int fd;                  /* the log's root directory */
	struct sf_rule rule;     /* what every file read must look like (max_size is set per read) */
	struct sf_new how;       /* how written files end up */
};

struct tlog_entry {
	const void *data;
	size_t len;              /* 1..TLOG_ENTRY_MAX */
};

/* A tlog_read_fn over struct tlog_dir. */
int tlog_dir_read(void *dir, const char *path, size_t max, unsigned char **data, size_t *len,
		  struct pst_err *e);

/* Writes file path (relative to the log root, directories made as needed) atomically. */
int tlog_dir_write(struct tlog_dir *d, const char *path, const void *data, size_t len,
		   struct pst_err *e);

/* Appends n entries to the log of old_size entries; *root is the new tree's root. */
int tlog_append(struct tlog_dir *d, uint64_t old_size, const struct tlog_entry *entries,
		size_t n, struct tlog_hash *root, struct pst_err *e);

#endif
