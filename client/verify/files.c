/*
 * postern-verify FILE...: a downloaded file is released when the log has a
 * "file" line with its name and its SHA-256, proved included under the
 * signed checkpoint. A later "gone" line for it is reported, not hidden.
 */
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hex.h"

int verify_sha256_fd(int fd, char out[65], struct pst_err *e)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	ssize_t n;
	int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;

	while (ok && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		ok = n > 0 && EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == 32;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return pst_fail(e, EIO, "cannot read and hash it: %s", strerror(errno));
	hex_lower(md, 32, out);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash == NULL ? path : slash + 1;
}

/* The inclusion proof of entry i from the tiles, checked against the checkpoint. */
static bool proved(const struct log_view *v, uint64_t i)
{
	struct tlog_tiles tiles;
	struct tlog_proof p;
	struct tlog_hash leaf;
	bool ok;

	tlog_tiles_init(&tiles, v->read, v->arg, v->cp.size);
	tlog_leaf_hash(v->entries[i].data, v->entries[i].len, &leaf);
	ok = tlog_prove_inclusion(tlog_tiles_node, &tiles, i, v->cp.size, &p, NULL) == 0 &&
	     tlog_check_inclusion(i, v->cp.size, &leaf, &p, &v->cp.root);
	tlog_tiles_free(&tiles);
	return ok;
}

struct finding {
	int64_t released, gone, other;    /* entry indexes, -1 when none */
	char path[LOG_WORD_MAX + 1], other_hash[65];
};

static bool scan(const struct log_view *v, const char *name, const char *sha, struct finding *f,
		 struct pst_err *e)
{
	struct log_entry le;
	uint64_t i;
	size_t k;

	f->released = f->gone = f->other = -1;
	for (i = 0; i < v->cp.size; i++) {
		if (!log_view_entry(v, i, &le, e))
			return false;
		for (k = 0; k < le.nfiles; k++) {
			struct log_file *lf = &le.files[k];

			if (strcmp(base_name(lf->path), name) != 0)
				continue;
			if (strcmp(lf->sha256, sha) != 0) {
				f->other = (int64_t)i;
				memcpy(f->other_hash, lf->sha256, sizeof(f->other_hash));
			} else if (lf->gone && f->released >= 0) {
				f->gone = (int64_t)i;
			} else if (!lf->gone) {
				f->released = (int64_t)i;
				memcpy(f->path, lf->path, sizeof(f->path));
			}
		}
	}
	return true;
}

static int verify_one(const void *ctx, const char *file)
{
	const struct log_view *v = ctx;
	struct pst_err e = {{0}};
	struct finding f;
	struct log_entry le;
	char sha[65];
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || verify_sha256_fd(fd, sha, &e) < 0) {
		printf("ERROR %s: cannot read it: %s\n", file, fd < 0 ? strerror(errno) : e.msg);
		if (fd >= 0)
			close(fd);
		return VERIFY_ERROR;
	}
	close(fd);
	if (!scan(v, base_name(file), sha, &f, &e)) {
		printf("ERROR %s: %s\n", file, e.msg);
		return VERIFY_ERROR;
	}
	if (f.released < 0) {
		if (f.other >= 0)
			printf("MISMATCH %s: sha256 %s, but the log's entry %lld released this name "
			       "with sha256 %s; do not use this file\n", file, sha,
			       (long long)f.other, f.other_hash);
		else
			printf("MISMATCH %s: sha256 %s is not in the log; this file was never "
			       "released by %s\n", file, sha, v->cp.origin);
		return VERIFY_MISMATCH;
	}
	if (!proved(v, (uint64_t)f.released)) {
		printf("MISMATCH %s: the log's inclusion proof for entry %lld does not verify\n", file,
		       (long long)f.released);
		return VERIFY_MISMATCH;
	}
	log_view_entry(v, (uint64_t)f.released, &le, NULL);
	printf("OK %s: %s %s, entry %lld of %llu, uploaded by %s%s%s\n", file, le.module,
	       le.version, (long long)f.released, (unsigned long long)v->cp.size, le.uploader,
	       strcmp(le.signer, "-") == 0 ? "" : ", signed by ",
	       strcmp(le.signer, "-") == 0 ? "" : le.signer);
	if (f.gone >= 0)
		printf("NOTE %s: removed from the tree later (entry %lld)\n", file, (long long)f.gone);
	return VERIFY_OK;
}

int verify_each(verify_one_fn *one, const void *ctx, char **files, int n)
{
	int i, rc, worst = VERIFY_OK;

	for (i = 0; i < n; i++) {
		rc = one(ctx, files[i]);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}

int verify_files(const struct log_view *v, char **files, int n)
{
	return verify_each(verify_one, v, files, n);
}
