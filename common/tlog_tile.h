/*
 * The log as c2sp.org/tlog-tiles lays it out: hash tiles tile/<L>/<N> of
 * 256 hashes of tree level 8L, entry bundles tile/entries/<N> of 256
 * entries (each a 2-byte big-endian length and its bytes), and the partial
 * tile at the right edge as <path>.p/<W> with W in 1..255. N is written in
 * groups of three digits, all but the last prefixed with 'x':
 * 1234067 -> x001/x234/067.
 */
#ifndef POSTERN_TLOG_TILE_H
#define POSTERN_TLOG_TILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "tlog.h"

#define TLOG_TILE_HEIGHT 8
#define TLOG_TILE_WIDTH 256
#define TLOG_LEVELS 8                 /* hash tile levels: 2^64 leaves need 8 */
#define TLOG_TILE_ENTRIES (-1)        /* "level" of the entry bundles */
#define TLOG_PATH_MAX 96
#define TLOG_ENTRY_MAX 4096           /* what any postern entry may take */

/* The tile's path; width TLOG_TILE_WIDTH names the full tile. False if it cannot be named. */
bool tlog_tile_path(int level, uint64_t index, unsigned width, char *out, size_t outlen);

/* The width of tile (level, index) in a log of size entries (0: it does not exist yet). */
unsigned tlog_tile_width(int level, uint64_t index, uint64_t size);

/* Reads one file of the log (path relative to its root) into a malloc'd buffer. */
typedef int tlog_read_fn(void *arg, const char *path, size_t max, unsigned char **data,
			 size_t *len, struct pst_err *e);

/*
 * Tile (level, index) of width w, as read: the partial file, or the prefix
 * of the full tile when the partial one is gone. An entry bundle must hold
 * exactly w well-formed entries; a hash tile exactly w hashes.
 */
int tlog_fetch_tile(tlog_read_fn *read, void *arg, int level, uint64_t index, unsigned w,
		    unsigned char **data, size_t *len, struct pst_err *e);

/* The tiles of a log of a given size, read through read (one tile cached per level). */
struct tlog_tiles {
	tlog_read_fn *read;
	void *arg;
	uint64_t size;
	struct {
		uint64_t index;
		unsigned width;
		unsigned char *data;
	} cache[TLOG_LEVELS];
};

void tlog_tiles_init(struct tlog_tiles *t, tlog_read_fn *read, void *arg, uint64_t size);
void tlog_tiles_free(struct tlog_tiles *t);
/* A tlog_node_fn over struct tlog_tiles: any complete subtree of the first t->size leaves. */
int tlog_tiles_node(void *tiles, unsigned level, uint64_t index, struct tlog_hash *out,
		    struct pst_err *e);

/* The root of n = 2^j consecutive hashes (32 bytes each). */
void tlog_subtree_root(const unsigned char *hashes, uint64_t n, struct tlog_hash *out);

/* The next entry of a bundle from *off; false at its end or when malformed (*bad set). */
bool tlog_bundle_next(const unsigned char *data, size_t len, size_t *off, const unsigned char **entry,
		      size_t *entry_len, bool *bad);

#endif
