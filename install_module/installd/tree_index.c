/*
 * Writes a module's indexes (checksum files, LATEST-IS, cache.json), all
 * derived from the tree (tree_index.h). It must never change a release file.
 */
#define _GNU_SOURCE
#include "tree_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "hex.h"
#include "safefile.h"
#include "strbuf.h"
#include "text.h"
#include "tree_scan.h"

#define LATEST_PREFIX "LATEST-IS-"

static const struct sf_new public_file = { 0644, SF_ANY_UID, SF_ANY_GID };

#define SUMS_MAX 4

int tree_write_sha256sum(int dir_fd, const char *module, const char *version,
			 const struct tree_sum *sums, size_t nsums, struct pst_err *e)
{
	char name[NAME_MAX + 1];
	char text[SUMS_MAX * (NAME_MAX + 80)];
	size_t len = 0;
	size_t i;
	int n;

	n = snprintf(name, sizeof(name), "%s-%s.sha256sum", module, version);
	if (n < 0 || (size_t)n >= sizeof(name))
		return pst_fail(e, ENAMETOOLONG, "%s-%s: checksum file name too long", module, version);
	if (nsums == 0 || nsums > SUMS_MAX)
		return pst_fail(e, EINVAL, "%s: %zu checksum lines", name, nsums);
	for (i = 0; i < nsums; i++) {
		n = snprintf(text + len, sizeof(text) - len, "%s  %s\n", sums[i].hex, sums[i].file);
		if (n < 0 || (size_t)n >= sizeof(text) - len || strlen(sums[i].file) > NAME_MAX)
			return pst_fail(e, ENAMETOOLONG, "%s: name too long", sums[i].file);
		len += (size_t)n;
	}
	return sf_write_atomic(dir_fd, name, text, len, &public_file, e);
}

int tree_hash_fd(int fd, char hex[65], struct pst_err *e)
{
	unsigned char buf[65536];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ssize_t n;
	off_t off = 0;
	int ok;

	if (ctx == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while (ok && (n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			EVP_MD_CTX_free(ctx);
			return pst_fail(e, errno, "cannot read for hashing: %s", strerror(errno));
		}
		ok = EVP_DigestUpdate(ctx, buf, (size_t)n);
		off += n;
	}
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	if (!ok || mdlen != 32)
		return pst_fail(e, EIO, "SHA-256 failed");
	hex_lower(md, 32, hex);
	return 0;
}

static bool has_sum(const struct tree_module *m, const struct tree_entry *rel)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_SHA256SUM && strcmp(m->entries[i].dir, rel->dir) == 0 &&
		    strcmp(m->entries[i].rn.version, rel->rn.version) == 0)
			return true;
	}
	return false;
}

static int hash_file(int dir_fd, const char *name, char hex[65], struct pst_err *e)
{
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", name, strerror(errno));
	rc = tree_hash_fd(fd, hex, e);
	close(fd);
	return rc;
}

/* The signature of rel's version in its directory, or NULL. */
static const struct tree_entry *signature_of(const struct tree_module *m,
					     const struct tree_entry *rel)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_SIGNATURE && strcmp(m->entries[i].dir, rel->dir) == 0 &&
		    strcmp(m->entries[i].rn.version, rel->rn.version) == 0)
			return &m->entries[i];
	}
	return NULL;
}

/* Recreate the checksum file of a release that has none (a crash came
 * between), with its signature's line when it has one. */
static int restore_sum(int module_fd, const struct tree_module *m, const struct tree_entry *rel,
		       struct pst_err *e)
{
	const struct tree_entry *sig = signature_of(m, rel);
	char hex[2][65];
	struct tree_sum sums[2] = { { rel->name, hex[0] }, { sig ? sig->name : NULL, hex[1] } };
	int dir_fd = openat(module_fd, rel->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	if (dir_fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", rel->dir, strerror(errno));
	rc = hash_file(dir_fd, rel->name, hex[0], e);
	if (rc == 0 && sig != NULL)
		rc = hash_file(dir_fd, sig->name, hex[1], e);
	if (rc == 0)
		rc = tree_write_sha256sum(dir_fd, rel->rn.module, rel->rn.version, sums,
					  sig != NULL ? 2 : 1, e);
	close(dir_fd);
	return rc;
}

/* The newest release of directory dir, or NULL. Releases are sorted by version. */
static const struct tree_entry *newest_in(const struct tree_module *m, const char *dir)
{
	const struct tree_entry *best = NULL;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_RELEASE && strcmp(m->entries[i].dir, dir) == 0)
			best = &m->entries[i];
	}
	return best;
}

/* Make LATEST-IS-<version> -> file the only LATEST-IS link of dir_fd. */
static int point_latest(int dir_fd, const struct tree_entry *rel, struct pst_err *e)
{
	char link_name[NAME_MAX + 1];
	char tmp[NAME_MAX + 1];
	char target[NAME_MAX + 1];
	ssize_t n;

	if (snprintf(link_name, sizeof(link_name), LATEST_PREFIX "%s", rel->rn.version) >=
		    (int)sizeof(link_name) ||
	    snprintf(tmp, sizeof(tmp), ".%s.%ld.tmp", link_name, (long)getpid()) >= (int)sizeof(tmp))
		return pst_fail(e, ENAMETOOLONG, "%s: name too long", rel->name);
	n = readlinkat(dir_fd, link_name, target, sizeof(target) - 1);
	if (n >= 0) {
		target[n] = '\0';
		if (strcmp(target, rel->name) == 0)
			return 0;
	}
	unlinkat(dir_fd, tmp, 0);
	if (symlinkat(rel->name, dir_fd, tmp) != 0)
		return pst_fail(e, errno, "%s: cannot create: %s", link_name, strerror(errno));
	if (renameat(dir_fd, tmp, dir_fd, link_name) != 0) {
		int err = errno;
		unlinkat(dir_fd, tmp, 0);
		return pst_fail(e, err, "%s: cannot rename into place: %s", link_name, strerror(err));
	}
	return 0;
}

/* Point LATEST-IS at newest (or at nothing) and drop every other LATEST-IS link. */
static int update_latest(int module_fd, const struct tree_module *m, const char *dir,
			 struct pst_err *e)
{
	const struct tree_entry *newest = newest_in(m, dir);
	char keep[NAME_MAX + 1] = "";
	int dir_fd = openat(module_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int rc = 0;
	size_t i;

	if (dir_fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", dir, strerror(errno));
	if (newest != NULL) {
		rc = point_latest(dir_fd, newest, e);
		snprintf(keep, sizeof(keep), LATEST_PREFIX "%s", newest->rn.version);
	}
	for (i = 0; rc == 0 && i < m->n; i++) {
		if (m->entries[i].kind == TREE_LATEST && strcmp(m->entries[i].dir, dir) == 0 &&
		    strcmp(m->entries[i].name, keep) != 0)
			unlinkat(dir_fd, m->entries[i].name, 0);
	}
	if (rc == 0 && fsync(dir_fd) != 0)
		rc = pst_fail(e, errno, "%s: cannot sync: %s", dir, strerror(errno));
	close(dir_fd);
	return rc;
}

/* True when an entry before upto lies in dir (and, with only_other, is TREE_OTHER). */
static bool dir_seen_before(const struct tree_module *m, size_t upto, const char *dir,
			    bool only_other)
{
	size_t i;

	for (i = 0; i < upto; i++) {
		if (strcmp(m->entries[i].dir, dir) == 0 &&
		    (!only_other || m->entries[i].kind == TREE_OTHER))
			return true;
	}
	return false;
}

/* Every file of one version: {"tar.xz": "dir/file", "sha256sum": "dir/file"}. */
static void json_formats(struct strbuf *b, const struct tree_module *m, const char *version)
{
	char path[2 * NAME_MAX + 2];
	bool first = true;
	size_t i;

	strbuf_add(b, "{");
	for (i = 0; i < m->n; i++) {
		const struct tree_entry *t = &m->entries[i];
		if ((t->kind != TREE_RELEASE && t->kind != TREE_SHA256SUM) ||
		    strcmp(t->rn.version, version) != 0)
			continue;
		strbuf_add(b, first ? "" : ", ");
		first = false;
		strbuf_add_json(b, t->kind == TREE_RELEASE ? release_compression_suffix(t->rn.compression)
							   : "sha256sum");
		strbuf_add(b, ": ");
		snprintf(path, sizeof(path), "%s/%s", t->dir, t->name);
		strbuf_add_json(b, path);
	}
	strbuf_add(b, "}");
}

/*
 * With formats: {"<module>": {"<version>": {<formats>}, ...}}; without:
 * {"<module>": ["<version>", ...]}. Each version once, in the scan's order.
 */
static void json_by_version(struct strbuf *b, const struct tree_module *m, const char *module,
			    bool formats)
{
	const char *prev = NULL;
	size_t i;

	strbuf_add(b, "{");
	strbuf_add_json(b, module);
	strbuf_add(b, formats ? ": {" : ": [");
	for (i = 0; i < m->n; i++) {
		const char *version = m->entries[i].rn.version;

		if (m->entries[i].kind != TREE_RELEASE || (prev != NULL && strcmp(prev, version) == 0))
			continue;
		strbuf_add(b, prev == NULL ? "" : ", ");
		strbuf_add_json(b, version);
		if (formats) {
			strbuf_add(b, ": ");
			json_formats(b, m, version);
		}
		prev = version;
	}
	strbuf_add(b, formats ? "}}" : "]}");
}

static void json_others(struct strbuf *b, const struct tree_module *m)
{
	bool first_dir = true;
	bool first;
	size_t i;
	size_t j;

	strbuf_add(b, "{");
	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind != TREE_OTHER || dir_seen_before(m, i, m->entries[i].dir, true))
			continue;
		strbuf_add(b, first_dir ? "" : ", ");
		first_dir = false;
		strbuf_add_json(b, m->entries[i].dir);
		strbuf_add(b, ": [");
		first = true;
		for (j = i; j < m->n; j++) {
			if (m->entries[j].kind != TREE_OTHER || strcmp(m->entries[j].dir, m->entries[i].dir) != 0)
				continue;
			strbuf_add(b, first ? "" : ", ");
			first = false;
			strbuf_add_json(b, m->entries[j].name);
		}
		strbuf_add(b, "]");
	}
	strbuf_add(b, "}");
}

static int write_cache_json(int module_fd, const struct tree_module *m, const char *module,
			    struct pst_err *e)
{
	struct strbuf b = { 0 };
	int rc;

	strbuf_add(&b, "[4, ");
	json_by_version(&b, m, module, true);
	strbuf_add(&b, ", ");
	json_by_version(&b, m, module, false);
	strbuf_add(&b, ", ");
	json_others(&b, m);
	strbuf_add(&b, "]\n");
	rc = b.failed ? pst_fail(e, ENOMEM, "out of memory")
		      : sf_write_atomic(module_fd, "cache.json", b.s, b.len, &public_file, e);
	strbuf_free(&b);
	return rc;
}

static int reindex_scanned(int module_fd, const char *module, struct pst_err *e)
{
	struct tree_module m;
	size_t i;
	int rc = tree_scan_module(module_fd, module, &m, e);

	for (i = 0; rc == 0 && i < m.n; i++) {
		if (m.entries[i].kind == TREE_RELEASE && !has_sum(&m, &m.entries[i]))
			rc = restore_sum(module_fd, &m, &m.entries[i], e);
	}
	tree_module_free(&m);
	if (rc == 0)
		rc = tree_scan_module(module_fd, module, &m, e);
	if (rc < 0)
		return rc;
	for (i = 0; rc == 0 && i < m.n; i++) {
		if (strcmp(m.entries[i].dir, ".") != 0 && !dir_seen_before(&m, i, m.entries[i].dir, false))
			rc = update_latest(module_fd, &m, m.entries[i].dir, e);
	}
	if (rc == 0)
		rc = write_cache_json(module_fd, &m, module, e);
	tree_module_free(&m);
	return rc;
}

/*
 * Temporaries a crash left in the module's directory and its version
 * directories, before anything reads them: mirrors must never see one.
 * Called under the module lock, so no write of this module is under way.
 */
static int drop_module_temps(int module_fd, struct pst_err *e)
{
	int walk_fd = openat(module_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd < 0 ? NULL : fdopendir(walk_fd);
	struct dirent *de;
	int rc = sf_drop_temps(module_fd, e), fd;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return rc < 0 ? rc : pst_fail(e, errno, "cannot read the module: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		fd = openat(module_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			rc = sf_drop_temps(fd, e);
			close(fd);
		}
	}
	closedir(dh);
	return rc;
}

int tree_reindex(int sources_fd, const char *module, struct pst_err *e)
{
	int module_fd = tree_module_open(sources_fd, module, 0, e);
	int rc;

	if (module_fd == -ENOENT)
		return 0;
	if (module_fd < 0)
		return module_fd;
	rc = drop_module_temps(module_fd, e);
	if (rc == 0)
		rc = reindex_scanned(module_fd, module, e);
	close(module_fd);
	if (rc < 0)
		pst_err_prefix(e, "reindexing %s", module);
	return rc;
}
