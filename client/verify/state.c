/*
 * postern-verify --state DIR: the last checkpoint seen of each log, so that
 * a server (or a mirror) showing a history that does not extend it is
 * caught: a smaller log, the same size with another root, or a larger one
 * whose consistency proof from the remembered root fails. Either is a fork
 * or a rollback, never something to accept quietly.
 */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "safefile.h"
#include "tlog_tile.h"

static void state_name(const struct log_view *v, char *out, size_t outlen)
{
	size_t i, n;

	n = (size_t)snprintf(out, outlen, "checkpoint.%s", v->cp.origin);
	for (i = 0; i < n && i < outlen; i++)
		if (out[i] == '/')
			out[i] = '_';
}

static int fork_found(const struct log_view *v, const char *old, const char *why)
{
	printf("FORK the log %s is not an extension of the one this state remembers: %s.\n"
	       "Someone rewrote the log's history, or is showing you a different one.\n"
	       "Remembered checkpoint:\n%s\nPresented checkpoint:\n%s\n"
	       "Keep both and report them to the log's operator and its users; do not update "
	       "the state until the cause is known.\n", v->cp.origin, why, old, v->note);
	return VERIFY_FORK;
}

static int extends(const struct log_view *v, const struct tlog_checkpoint *old, const char *note)
{
	struct tlog_tiles tiles;
	struct tlog_proof p;
	bool ok;

	if (old->size > v->cp.size)
		return fork_found(v, note, "it is smaller than before");
	if (old->size == v->cp.size)
		return tlog_hash_equal(&old->root, &v->cp.root)
			       ? VERIFY_OK
			       : fork_found(v, note, "it has the same size and another root");
	tlog_tiles_init(&tiles, v->read, v->arg, v->cp.size);
	ok = tlog_prove_consistency(tlog_tiles_node, &tiles, old->size, v->cp.size, &p, NULL) == 0 &&
	     tlog_check_consistency(old->size, v->cp.size, &old->root, &v->cp.root, &p);
	tlog_tiles_free(&tiles);
	return ok ? VERIFY_OK : fork_found(v, note, "its consistency proof fails");
}

static int remembered(const struct log_view *v, int state_fd, const char *name)
{
	struct sf_rule rule = {.type = S_IFREG, .uid = SF_ANY_UID, .gid = SF_ANY_GID,
			       .forbid = 022, .max_size = TLOG_NOTE_MAX};
	struct tlog_checkpoint old;
	struct pst_err e = {{0}};
	char *note;
	size_t len;
	int body, rc, fd = sf_openat(state_fd, name, O_RDONLY, &rule, NULL, &e);

	if (fd == -ENOENT)
		return -ENOENT;
	if (fd < 0)
		return fprintf(stderr, "postern-verify: state %s: %s\n", name, e.msg), VERIFY_ERROR;
	rc = sf_read_all(fd, TLOG_NOTE_MAX, &note, &len, &e);
	close(fd);
	if (rc < 0)
		return fprintf(stderr, "postern-verify: state %s: %s\n", name, e.msg), VERIFY_ERROR;
	body = tlog_note_open(&v->vkey, note, len, &e);
	if (body < 0 || tlog_checkpoint_parse(note, (size_t)body, &old, &e) < 0) {
		fprintf(stderr, "postern-verify: the remembered checkpoint %s is damaged (%s); "
			"compare it with another copy before removing it\n", name, e.msg);
		free(note);
		return VERIFY_ERROR;
	}
	rc = extends(v, &old, note);
	free(note);
	return rc;
}

int verify_state(const struct log_view *v, int state_fd)
{
	struct sf_new how = {.mode = 0644, .uid = SF_ANY_UID, .gid = SF_ANY_GID};
	struct pst_err e = {{0}};
	char name[TLOG_NAME_MAX + 16];
	int rc;

	state_name(v, name, sizeof(name));
	rc = remembered(v, state_fd, name);
	if (rc != VERIFY_OK && rc != -ENOENT)
		return rc;
	if (rc == -ENOENT)
		printf("NEW first checkpoint of %s remembered: %llu entries\n", v->cp.origin,
		       (unsigned long long)v->cp.size);
	if (sf_write_atomic(state_fd, name, v->note, v->note_len, &how, &e) < 0) {
		fprintf(stderr, "postern-verify: cannot remember the checkpoint: %s\n", e.msg);
		return VERIFY_ERROR;
	}
	return VERIFY_OK;
}
