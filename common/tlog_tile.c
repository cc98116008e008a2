/*
 * Tile paths and reading node hashes out of hash tiles (tlog_tile.h).
 * A node of tree level 8L + j is the root of 2^j consecutive hashes of a
 * level-L tile, so any node costs at most one tile read.
 */
#include "tlog_tile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool index_path(uint64_t index, char *out, size_t outlen)
{
	char groups[8][8];
	size_t n = 0, used = 0, i;
	int w;

	do {
		snprintf(groups[n++], sizeof(groups[0]), "%03u", (unsigned)(index % 1000));
		index /= 1000;
	} while (index > 0 && n < 8);
	if (index > 0)
		return false;
	for (i = n; i-- > 0;) {
		w = snprintf(out + used, outlen - used, "%s%s%s", i > 0 ? "x" : "", groups[i],
			     i > 0 ? "/" : "");
		if (w < 0 || (size_t)w >= outlen - used)
			return false;
		used += (size_t)w;
	}
	return true;
}

bool tlog_tile_path(int level, uint64_t index, unsigned width, char *out, size_t outlen)
{
	char n[40];
	int w;

	if (level < TLOG_TILE_ENTRIES || level >= TLOG_LEVELS || width == 0 ||
	    width > TLOG_TILE_WIDTH || !index_path(index, n, sizeof(n)))
		return false;
	if (level == TLOG_TILE_ENTRIES)
		w = snprintf(out, outlen, "tile/entries/%s", n);
	else
		w = snprintf(out, outlen, "tile/%d/%s", level, n);
	if (w > 0 && (size_t)w < outlen && width < TLOG_TILE_WIDTH)
		w += snprintf(out + w, outlen - (size_t)w, ".p/%u", width);
	return w > 0 && (size_t)w < outlen;
}

unsigned tlog_tile_width(int level, uint64_t index, uint64_t size)
{
	unsigned shift = level <= 0 ? 0 : (unsigned)level * TLOG_TILE_HEIGHT;
	uint64_t count = shift >= 64 ? 0 : size >> shift;   /* hashes (or entries) at this level */
	uint64_t first;

	if (index > UINT64_MAX / TLOG_TILE_WIDTH)
		return 0;
	first = index * TLOG_TILE_WIDTH;
	if (count <= first)
		return 0;
	return count - first >= TLOG_TILE_WIDTH ? TLOG_TILE_WIDTH : (unsigned)(count - first);
}

void tlog_tiles_init(struct tlog_tiles *t, tlog_read_fn *read, void *arg, uint64_t size)
{
	memset(t, 0, sizeof(*t));
	t->read = read;
	t->arg = arg;
	t->size = size;
}

void tlog_tiles_free(struct tlog_tiles *t)
{
	size_t i;

	for (i = 0; i < TLOG_LEVELS; i++) {
		free(t->cache[i].data);
		t->cache[i].data = NULL;
	}
}

/* The length of the first w entries of a bundle, or 0 when it does not hold w. */
static size_t bundle_prefix(const unsigned char *data, size_t len, unsigned w)
{
	const unsigned char *entry;
	size_t off = 0, elen;
	unsigned n = 0;
	bool bad = false;

	while (n < w && tlog_bundle_next(data, len, &off, &entry, &elen, &bad))
		n++;
	return n == w && !bad ? off : 0;
}

static int fetch(tlog_read_fn *read, void *arg, int level, uint64_t index, unsigned w,
		 unsigned char **data, size_t *len, struct pst_err *e)
{
	char path[TLOG_PATH_MAX];
	size_t max = level == TLOG_TILE_ENTRIES ? (size_t)w * (2 + TLOG_ENTRY_MAX)
						: (size_t)w * TLOG_HASH_LEN;

	if (!tlog_tile_path(level, index, w, path, sizeof(path)))
		return pst_fail(e, EINVAL, "tile %d/%llu cannot be named", level,
				(unsigned long long)index);
	return read(arg, path, max, data, len, e);
}

/* The bytes of the first w items of a file that must hold exactly `holds`; 0 if it does not. */
static size_t tile_prefix(int level, const unsigned char *data, size_t len, unsigned holds,
			  unsigned w)
{
	if (level != TLOG_TILE_ENTRIES)
		return len == (size_t)holds * TLOG_HASH_LEN ? (size_t)w * TLOG_HASH_LEN : 0;
	return bundle_prefix(data, len, holds) == len ? bundle_prefix(data, len, w) : 0;
}

int tlog_fetch_tile(tlog_read_fn *read, void *arg, int level, uint64_t index, unsigned w,
		    unsigned char **data, size_t *len, struct pst_err *e)
{
	char path[TLOG_PATH_MAX];
	unsigned holds = w;
	size_t want;
	int rc = fetch(read, arg, level, index, w, data, len, e);

	if (rc == -ENOENT && w < TLOG_TILE_WIDTH) {
		holds = TLOG_TILE_WIDTH;
		rc = fetch(read, arg, level, index, holds, data, len, e);
	}
	if (rc < 0)
		return rc;
	want = tile_prefix(level, *data, *len, holds, w);
	if (want == 0) {
		free(*data);
		*data = NULL;
		tlog_tile_path(level, index, holds, path, sizeof(path));
		return pst_fail(e, EBADMSG, "the log's %s does not hold exactly %u %s; the log "
				"was damaged or altered", path, holds,
				level == TLOG_TILE_ENTRIES ? "entries" : "hashes");
	}
	*len = want;
	return 0;
}

/* The hashes of tile (level, index) as the log of t->size has it. */
static int tile_hashes(struct tlog_tiles *t, unsigned level, uint64_t index,
		       const unsigned char **out, unsigned *width, struct pst_err *e)
{
	unsigned w = tlog_tile_width((int)level, index, t->size);
	unsigned char *data;
	size_t len;
	int rc;

	if (w == 0)
		return pst_fail(e, EINVAL, "the log of %llu entries has no tile %u/%llu",
				(unsigned long long)t->size, level, (unsigned long long)index);
	if (t->cache[level].data == NULL || t->cache[level].index != index ||
	    t->cache[level].width != w) {
		rc = tlog_fetch_tile(t->read, t->arg, (int)level, index, w, &data, &len, e);
		if (rc < 0)
			return rc;
		free(t->cache[level].data);
		t->cache[level].data = data;
		t->cache[level].index = index;
		t->cache[level].width = w;
	}
	*out = t->cache[level].data;
	*width = w;
	return 0;
}

void tlog_subtree_root(const unsigned char *hashes, uint64_t n, struct tlog_hash *out)
{
	struct tlog_hash l, r;

	if (n == 1) {
		memcpy(out->b, hashes, TLOG_HASH_LEN);
		return;
	}
	tlog_subtree_root(hashes, n / 2, &l);
	tlog_subtree_root(hashes + (n / 2) * TLOG_HASH_LEN, n / 2, &r);
	tlog_node_hash(&l, &r, out);
}

int tlog_tiles_node(void *tiles, unsigned level, uint64_t index, struct tlog_hash *out,
		    struct pst_err *e)
{
	struct tlog_tiles *t = tiles;
	unsigned tl = level / TLOG_TILE_HEIGHT, j = level % TLOG_TILE_HEIGHT;
	uint64_t first, n = UINT64_C(1) << j;
	const unsigned char *hashes = NULL;
	unsigned width = 0;
	int rc;

	if (tl >= TLOG_LEVELS || index > (UINT64_MAX >> j))
		return pst_fail(e, EINVAL, "no such node of the log");
	first = index << j;
	rc = tile_hashes(t, tl, first / TLOG_TILE_WIDTH, &hashes, &width, e);
	if (rc < 0)
		return rc;
	if ((first % TLOG_TILE_WIDTH) + n > width)
		return pst_fail(e, EINVAL, "node %u/%llu is not complete in the log of %llu entries",
				level, (unsigned long long)index, (unsigned long long)t->size);
	tlog_subtree_root(hashes + (first % TLOG_TILE_WIDTH) * TLOG_HASH_LEN, n, out);
	return 0;
}

bool tlog_bundle_next(const unsigned char *data, size_t len, size_t *off, const unsigned char **entry,
		      size_t *entry_len, bool *bad)
{
	size_t n;

	*bad = false;
	if (*off == len)
		return false;
	if (len - *off < 2) {
		*bad = true;
		return false;
	}
	n = ((size_t)data[*off] << 8) | data[*off + 1];
	if (n == 0 || len - *off - 2 < n) {
		*bad = true;
		return false;
	}
	*entry = data + *off + 2;
	*entry_len = n;
	*off += 2 + n;
	return true;
}
