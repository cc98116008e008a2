/*
 * Reading a log the way a distrustful client must (verify.h): the
 * checkpoint's signature first, then the root recomputed twice, from the
 * hash tiles (what other tlog clients use) and from the entries themselves
 * (so no tile is trusted for what an entry says).
 */
#include "verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tlog_tile.h"

static int read_checkpoint(struct log_view *v, struct pst_err *e)
{
	unsigned char *data;
	size_t len;
	int body, rc = v->read(v->arg, "checkpoint", TLOG_NOTE_MAX, &data, &len, e);

	if (rc < 0)
		return VERIFY_ERROR;
	memcpy(v->note, data, len);
	v->note[len] = '\0';
	v->note_len = len;
	free(data);
	body = tlog_note_open(&v->vkey, v->note, len, e);
	if (body < 0) {
		pst_err_prefix(e, "the log's checkpoint");
		return VERIFY_ERROR;
	}
	if (tlog_checkpoint_parse(v->note, (size_t)body, &v->cp, e) < 0)
		return VERIFY_ERROR;
	/* The key names its log: a checkpoint of another log signed by the same key is not ours. */
	if (strcmp(v->cp.origin, v->vkey.name) != 0)
		return pst_fail(e, EINVAL, "the checkpoint is for log '%s', the key for '%s'",
				v->cp.origin, v->vkey.name), VERIFY_ERROR;
	return VERIFY_OK;
}

static int read_entries(struct log_view *v, struct pst_err *e)
{
	const unsigned char *entry;
	uint64_t b, k = 0;
	size_t len, off, elen;
	bool bad;

	v->nbundles = (size_t)((v->cp.size + TLOG_TILE_WIDTH - 1) / TLOG_TILE_WIDTH);
	v->bundles = calloc(v->nbundles + 1, sizeof(*v->bundles));
	v->entries = calloc((size_t)v->cp.size + 1, sizeof(*v->entries));
	if (v->bundles == NULL || v->entries == NULL)
		return pst_fail(e, ENOMEM, "out of memory for a log of %llu entries",
				(unsigned long long)v->cp.size), VERIFY_ERROR;
	for (b = 0; b < v->nbundles; b++) {
		unsigned w = tlog_tile_width(TLOG_TILE_ENTRIES, b, v->cp.size);

		if (tlog_fetch_tile(v->read, v->arg, TLOG_TILE_ENTRIES, b, w, &v->bundles[b],
				    &len, e) < 0)
			return VERIFY_ERROR;
		for (off = 0; tlog_bundle_next(v->bundles[b], len, &off, &entry, &elen, &bad); k++)
			v->entries[k] = (struct log_text){entry, elen};
	}
	return VERIFY_OK;
}

/* Every hash the tiles store must be the one the entries give: no tile is taken on trust. */
static int check_tiles(struct log_view *v, struct tlog_hash *leaves, struct pst_err *e)
{
	struct tlog_tiles tiles;
	struct tlog_hash got, want;
	char path[TLOG_PATH_MAX];
	unsigned level;
	uint64_t k, count;
	int rc = VERIFY_OK;

	tlog_tiles_init(&tiles, v->read, v->arg, v->cp.size);
	for (level = 0; level < 64 && rc == VERIFY_OK; level += TLOG_TILE_HEIGHT) {
		count = v->cp.size >> level;
		for (k = 0; k < count && rc == VERIFY_OK; k++) {
			if (tlog_tiles_node(&tiles, level, k, &got, e) < 0) {
				rc = VERIFY_ERROR;
				break;
			}
			tlog_array_node(leaves, level, k, &want, e);
			if (!tlog_hash_equal(&got, &want)) {
				tlog_tile_path((int)(level / TLOG_TILE_HEIGHT), k / TLOG_TILE_WIDTH,
					       tlog_tile_width((int)(level / TLOG_TILE_HEIGHT),
							       k / TLOG_TILE_WIDTH, v->cp.size),
					       path, sizeof(path));
				pst_fail(e, EBADMSG, "the log's hash tile %s does not match its "
					 "entries (hash %llu)", path,
					 (unsigned long long)(k % TLOG_TILE_WIDTH));
				rc = VERIFY_MISMATCH;
			}
		}
	}
	tlog_tiles_free(&tiles);
	return rc;
}

/* The root from the entries alone must be the checkpoint's, and the tiles must agree. */
static int check_roots(struct log_view *v, struct pst_err *e)
{
	struct tlog_hash *leaves = calloc((size_t)v->cp.size + 1, sizeof(*leaves)), root;
	uint64_t i;
	int rc = VERIFY_OK;

	if (leaves == NULL)
		return pst_fail(e, ENOMEM, "out of memory"), VERIFY_ERROR;
	for (i = 0; i < v->cp.size; i++)
		tlog_leaf_hash(v->entries[i].data, v->entries[i].len, &leaves[i]);
	tlog_tree_hash(tlog_array_node, leaves, v->cp.size, &root, e);
	if (!tlog_hash_equal(&root, &v->cp.root)) {
		pst_fail(e, EBADMSG, "the log's entries do not hash to its signed checkpoint: "
			 "an entry was changed, removed, added or reordered");
		rc = VERIFY_MISMATCH;
	}
	if (rc == VERIFY_OK)
		rc = check_tiles(v, leaves, e);
	free(leaves);
	return rc;
}

int log_view_open(struct log_view *v, tlog_read_fn *read, void *arg, const struct tlog_vkey *vkey,
		  struct pst_err *e)
{
	int rc;

	memset(v, 0, sizeof(*v));
	v->read = read;
	v->arg = arg;
	v->vkey = *vkey;
	rc = read_checkpoint(v, e);
	if (rc == VERIFY_OK)
		rc = read_entries(v, e);
	if (rc == VERIFY_OK)
		rc = check_roots(v, e);
	return rc;
}

void log_view_close(struct log_view *v)
{
	size_t i;

	for (i = 0; v->bundles != NULL && i < v->nbundles; i++)
		free(v->bundles[i]);
	free(v->bundles);
	free(v->entries);
	v->bundles = NULL;
	v->entries = NULL;
}

bool log_view_entry(const struct log_view *v, uint64_t i, struct log_entry *le,
		    struct pst_err *e)
{
	if (log_entry_parse((const char *)v->entries[i].data, v->entries[i].len, le, e) == 0)
		return true;
	pst_err_prefix(e, "log entry %llu", (unsigned long long)i);
	return false;
}
