/*
 * The log on disk (tlog_dir.h). Each level of the tree is extended from the
 * partial tile at its right edge: the hashes (or entries) already there are
 * read back, the new ones appended, and every tile they reach written. A
 * level-L hash is the root of a full level-(L-1) tile, so the batch costs
 * O(batch + 256 * levels) hashes whatever the log's size.
 */
#include "tlog_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens (or with make, creates) the directories of path, leaving *last at its file name. */
static int open_parent(struct tlog_dir *d, const char *path, bool make, char *buf,
		       size_t buflen, const char **last, struct pst_err *e)
{
	char *p, *slash;
	int fd = dup(d->fd), next;

	if (fd < 0)
		return pst_fail(e, errno, "cannot use the log directory: %s", strerror(errno));
	if (strlen(path) >= buflen) {
		close(fd);
		return pst_fail(e, ENAMETOOLONG, "log path %s is too long", path);
	}
	strcpy(buf, path);
	for (p = buf; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
		*slash = '\0';
		if (!sf_is_component(p)) {
			close(fd);
			return pst_fail(e, EINVAL, "log path %s is not a tile path", path);
		}
		if (make && mkdirat(fd, p, d->how.mode | 0111) != 0 && errno != EEXIST) {
			close(fd);
			return pst_fail(e, errno, "cannot make %s in the log: %s", p, strerror(errno));
		}
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return pst_fail(e, errno, "cannot open %s in the log: %s", path,
					strerror(errno));
		fd = next;
	}
	*last = p;
	return fd;
}

int tlog_dir_read(void *dir, const char *path, size_t max, unsigned char **data, size_t *len,
		  struct pst_err *e)
{
	struct tlog_dir *d = dir;
	struct sf_rule rule = d->rule;
	char buf[TLOG_PATH_MAX];
	const char *name;
	char *text;
	int dfd = open_parent(d, path, false, buf, sizeof(buf), &name, e), fd, rc;

	if (dfd < 0)
		return dfd;
	rule.type = S_IFREG;
	rule.max_size = (off_t)max;
	fd = sf_openat(dfd, name, O_RDONLY, &rule, NULL, e);
	close(dfd);
	if (fd < 0) {
		pst_err_prefix(e, "log file %s", path);
		return fd;
	}
	rc = sf_read_all(fd, max, &text, len, e);
	close(fd);
	if (rc < 0) {
		pst_err_prefix(e, "log file %s", path);
		return rc;
	}
	*data = (unsigned char *)text;
	return 0;
}

int tlog_dir_write(struct tlog_dir *d, const char *path, const void *data, size_t len,
		   struct pst_err *e)
{
	char buf[TLOG_PATH_MAX];
	const char *name;
	int dfd = open_parent(d, path, true, buf, sizeof(buf), &name, e), rc;

	if (dfd < 0)
		return dfd;
	/* The temporary in the log's root: a crash never leaves one among the tiles. */
	rc = sf_write_atomic_via(d->fd, dfd, name, data, len, &d->how, e);
	close(dfd);
	return rc;
}

/* One level being extended: items from first (a multiple of 256) to first + n. */
struct level_buf {
	uint64_t first;
	size_t n, cap, used;      /* used: bytes in data (entries vary in size) */
	unsigned char *data;
};

static int buf_add(struct level_buf *b, const void *item, size_t len, bool entry,
		   struct pst_err *e)
{
	size_t need = len + (entry ? 2 : 0);
	unsigned char *bigger;

	if (b->cap - b->used < need) {
		size_t cap = b->cap * 2 + need + 4096;

		bigger = realloc(b->data, cap);
		if (bigger == NULL)
			return pst_fail(e, ENOMEM, "out of memory extending the log");
		b->data = bigger;
		b->cap = cap;
	}
	if (entry) {
		b->data[b->used++] = (unsigned char)(len >> 8);
		b->data[b->used++] = (unsigned char)len;
	}
	memcpy(b->data + b->used, item, len);
	b->used += len;
	b->n++;
	return 0;
}

/* The items already at the right edge of a level of the log of old items there. */
static int buf_start(struct tlog_dir *d, int level, uint64_t old, struct level_buf *b,
		     struct pst_err *e)
{
	unsigned w = (unsigned)(old % TLOG_TILE_WIDTH);
	unsigned char *data;
	size_t len;
	int rc;

	memset(b, 0, sizeof(*b));
	b->first = old - w;
	if (w == 0)
		return 0;
	rc = tlog_fetch_tile(tlog_dir_read, d, level, old / TLOG_TILE_WIDTH, w, &data, &len, e);
	if (rc < 0)
		return rc;
	b->data = data;
	b->cap = b->used = len;
	b->n = w;
	return 0;
}

/* Writes every tile of the level from b->first on. */
static int buf_write(struct tlog_dir *d, int level, const struct level_buf *b, struct pst_err *e)
{
	char path[TLOG_PATH_MAX];
	size_t off = 0, i, start, end, elen;
	const unsigned char *entry;
	bool bad;
	int rc;

	for (i = 0; i < b->n; i += TLOG_TILE_WIDTH) {
		size_t w = b->n - i < TLOG_TILE_WIDTH ? b->n - i : TLOG_TILE_WIDTH, k;

		start = off;
		if (level == TLOG_TILE_ENTRIES)
			for (k = 0; k < w; k++)
				tlog_bundle_next(b->data, b->used, &off, &entry, &elen, &bad);
		else
			off += w * TLOG_HASH_LEN;
		end = off;
		if (!tlog_tile_path(level, (b->first + i) / TLOG_TILE_WIDTH, (unsigned)w, path,
				    sizeof(path)))
			return pst_fail(e, EOVERFLOW, "the log is too large for tile paths");
		rc = tlog_dir_write(d, path, b->data + start, end - start, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Level 0 from the entries; level L from the full tiles of level L - 1. */
static int extend_level(struct tlog_dir *d, int level, uint64_t old_size, uint64_t new_size,
			const struct tlog_entry *entries, const struct level_buf *below,
			struct pst_err *e)
{
	unsigned shift = (unsigned)level * TLOG_TILE_HEIGHT;
	uint64_t old = old_size >> shift, now = new_size >> shift, i;
	struct level_buf b;
	struct tlog_hash h;
	int rc = buf_start(d, level, old, &b, e);

	for (i = old; rc == 0 && i < now; i++) {
		if (level == 0)
			tlog_leaf_hash(entries[i - old].data, entries[i - old].len, &h);
		else
			tlog_subtree_root(below->data + (i * TLOG_TILE_WIDTH - below->first) * TLOG_HASH_LEN,
				     TLOG_TILE_WIDTH, &h);
		rc = buf_add(&b, h.b, sizeof(h.b), false, e);
	}
	if (rc == 0 && now > old)
		rc = buf_write(d, level, &b, e);
	/* A level that gained no hash leaves every level above it as it was. */
	if (rc == 0 && now > old && level + 1 < TLOG_LEVELS &&
	    (new_size >> (shift + TLOG_TILE_HEIGHT)) > 0)
		rc = extend_level(d, level + 1, old_size, new_size, entries, &b, e);
	free(b.data);
	return rc;
}

static int write_bundles(struct tlog_dir *d, uint64_t old_size, const struct tlog_entry *entries,
			 size_t n, struct pst_err *e)
{
	struct level_buf b;
	size_t i;
	int rc = buf_start(d, TLOG_TILE_ENTRIES, old_size, &b, e);

	for (i = 0; rc == 0 && i < n; i++) {
		if (entries[i].len == 0 || entries[i].len > TLOG_ENTRY_MAX)
			rc = pst_fail(e, EINVAL, "a log entry must be 1 to %d bytes", TLOG_ENTRY_MAX);
		else
			rc = buf_add(&b, entries[i].data, entries[i].len, true, e);
	}
	if (rc == 0)
		rc = buf_write(d, TLOG_TILE_ENTRIES, &b, e);
	free(b.data);
	return rc;
}

int tlog_append(struct tlog_dir *d, uint64_t old_size, const struct tlog_entry *entries,
		size_t n, struct tlog_hash *root, struct pst_err *e)
{
	struct tlog_tiles tiles;
	int rc;

	if (n == 0 || old_size > UINT64_MAX - n)
		return pst_fail(e, EINVAL, "nothing to append to the log");
	rc = write_bundles(d, old_size, entries, n, e);
	if (rc == 0)
		rc = extend_level(d, 0, old_size, old_size + n, entries, NULL, e);
	if (rc < 0)
		return rc;
	/* The root from the tiles as written: what every verifier will compute. */
	tlog_tiles_init(&tiles, tlog_dir_read, d, old_size + n);
	rc = tlog_tree_hash(tlog_tiles_node, &tiles, old_size + n, root, e);
	tlog_tiles_free(&tiles);
	return rc;
}
