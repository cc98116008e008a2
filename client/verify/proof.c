/*
 * Inclusion proof files (<release>.tlog-proof, c2sp.org/tlog-proof@v1):
 * a download checked offline with the pinned key alone, and, on a mirror,
 * each proof checked against the log it came from.
 * Offline, only what the proof's own checkpoint shows is known: a later
 * removal, or a fork of the log since, needs the log itself (--log).
 */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"
#include "tlog_proof_file.h"
#include "tlog_tile.h"

/* name in dir_fd, a regular file, read and parsed into f (f->note points into *text). */
static int load(int dir_fd, const char *name, char **text, struct tlog_proof_file *f,
		struct pst_err *e)
{
	/* O_NONBLOCK: a FIFO planted in the tree must not hang a cron job. */
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	size_t len;
	int rc;

	*text = NULL;
	if (fd < 0)
		return pst_fail(e, errno, "cannot open it: %s", strerror(errno));
	rc = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? sf_read_all(fd, TLOG_PROOF_FILE_MAX, text,
								       &len, e)
		: pst_fail(e, EINVAL, "not a regular file");
	close(fd);
	if (rc == 0)
		rc = tlog_proof_file_parse(*text, len, f, e);
	return rc;
}

/* The file line of le that published name with sha256, or NULL. */
static const struct log_file *published(const struct log_entry *le, const char *name,
					const char *sha256)
{
	const char *base;
	size_t i;

	for (i = 0; i < le->nfiles; i++) {
		base = strrchr(le->files[i].path, '/');
		base = base == NULL ? le->files[i].path : base + 1;
		if (!le->files[i].gone && strcmp(base, name) == 0 &&
		    (sha256 == NULL || strcmp(le->files[i].sha256, sha256) == 0))
			return &le->files[i];
	}
	return NULL;
}

static int check_offline(const struct tlog_vkey *k, const char *file, const char *sha,
			 const struct tlog_proof_file *f, struct pst_err *e)
{
	const char *slash = strrchr(file, '/');
	struct tlog_checkpoint cp;
	struct log_entry le;
	int rc = tlog_proof_file_check(f, k, &cp, e);

	if (rc < 0)
		return rc;
	if (log_entry_parse((const char *)f->extra, f->extra_len, &le, e) < 0)
		return -EBADMSG;
	if (published(&le, slash == NULL ? file : slash + 1, sha) == NULL)
		return pst_fail(e, EBADMSG, "sha256 %s: the proved entry %llu did not publish this "
				"file with these bytes; do not use this file", sha,
				(unsigned long long)f->index);
	printf("OK %s: %s %s, entry %llu of %llu, uploaded by %s%s%s (offline, from its "
	       ".tlog-proof)\n", file, le.module, le.version, (unsigned long long)f->index,
	       (unsigned long long)cp.size, le.uploader, strcmp(le.signer, "-") == 0 ? "" : ", signed by ",
	       strcmp(le.signer, "-") == 0 ? "" : le.signer);
	return 0;
}

static int verify_offline_one(const void *ctx, const char *file)
{
	const struct tlog_vkey *k = ctx;
	struct tlog_proof_file *f = malloc(sizeof(*f));
	struct pst_err e = {{0}};
	char proof[4096], sha[65], *text = NULL;
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc;

	if (fd < 0 || f == NULL || verify_sha256_fd(fd, sha, &e) < 0) {
		printf("ERROR %s: cannot read it: %s\n", file, fd < 0 ? strerror(errno) : e.msg);
		rc = VERIFY_ERROR;
	} else if (snprintf(proof, sizeof(proof), "%s.tlog-proof", file) >= (int)sizeof(proof)) {
		printf("ERROR %s: the name is too long\n", file);
		rc = VERIFY_ERROR;
	} else if (load(AT_FDCWD, proof, &text, f, &e) < 0) {
		printf("ERROR %s: %s; download it beside the file, or check against the log "
		       "with --log\n", proof, e.msg);
		rc = VERIFY_ERROR;
	} else {
		rc = check_offline(k, file, sha, f, &e) < 0 ? VERIFY_MISMATCH : VERIFY_OK;
		if (rc != VERIFY_OK)
			printf("MISMATCH %s: %s\n", file, e.msg);
	}
	if (fd >= 0)
		close(fd);
	free(text);
	free(f);
	return rc;
}

int verify_files_offline(const struct tlog_vkey *k, char **files, int n)
{
	int worst = verify_each(verify_offline_one, k, files, n);

	if (worst == VERIFY_OK)
		printf("NOTE offline proofs show what was released, not whether it was removed "
		       "since or the log forked: check with --log for that\n");
	return worst;
}

/* The root of the first n entries of v's log. */
static int root_at(const struct log_view *v, uint64_t n, struct tlog_hash *root, struct pst_err *e)
{
	struct tlog_tiles tiles;
	int rc;

	tlog_tiles_init(&tiles, v->read, v->arg, v->cp.size);
	rc = tlog_tree_hash(tlog_tiles_node, &tiles, n, root, e);
	tlog_tiles_free(&tiles);
	return rc;
}

static int check_against_log(const struct log_view *v, const struct tlog_proof_file *f,
			     const char *release, struct pst_err *e)
{
	struct tlog_checkpoint cp;
	struct tlog_hash root;
	struct log_entry le;
	int rc = tlog_proof_file_check(f, &v->vkey, &cp, e);

	if (rc < 0)
		return rc;
	if (cp.size > v->cp.size)
		return pst_fail(e, EBADMSG, "its checkpoint has %llu entries, the log only %llu",
				(unsigned long long)cp.size, (unsigned long long)v->cp.size);
	rc = root_at(v, cp.size, &root, e);
	if (rc == 0 && !tlog_hash_equal(&root, &cp.root))
		rc = pst_fail(e, EBADMSG, "its checkpoint of %llu entries is not this log's: a fork",
			      (unsigned long long)cp.size);
	if (rc == 0 && (v->entries[f->index].len != f->extra_len ||
			memcmp(v->entries[f->index].data, f->extra, f->extra_len) != 0))
		rc = pst_fail(e, EBADMSG, "its entry is not the log's entry %llu",
			      (unsigned long long)f->index);
	if (rc == 0 && (!log_view_entry(v, f->index, &le, e) || published(&le, release, NULL) == NULL))
		rc = pst_fail(e, EBADMSG, "entry %llu does not publish %s",
			      (unsigned long long)f->index, release);
	return rc;
}

bool verify_proof_in_tree(const struct log_view *v, int dir_fd, const char *name,
			  struct pst_err *e)
{
	struct tlog_proof_file *f = malloc(sizeof(*f));
	char release[256], *text = NULL;
	size_t n = strlen(name) - strlen(".tlog-proof");
	int rc = f == NULL ? pst_fail(e, ENOMEM, "out of memory") : load(dir_fd, name, &text, f, e);

	snprintf(release, sizeof(release), "%.*s", (int)n, name);
	if (rc == 0)
		rc = check_against_log(v, f, release, e);
	free(text);
	free(f);
	return rc == 0;
}
