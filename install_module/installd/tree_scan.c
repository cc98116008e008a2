/*
 * Reads what one module has in the public tree (tree_scan.h). Read only: it
 * must never follow a symlink out of the module or change anything.
 */
#define _GNU_SOURCE
#include "tree_scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

#define LATEST_PREFIX "LATEST-IS-"
#define SUM_SUFFIX ".sha256sum"
#define TAR_SIGN_SUFFIX ".tar.sign"

static struct tree_entry *entry_new(struct tree_module *m)
{
	struct tree_entry *bigger;
	size_t cap;

	if (m->n == m->cap) {
		cap = m->cap ? m->cap * 2 : 32;
		bigger = realloc(m->entries, cap * sizeof(*bigger));
		if (bigger == NULL)
			return NULL;
		m->entries = bigger;
		m->cap = cap;
	}
	memset(&m->entries[m->n], 0, sizeof(m->entries[0]));
	return &m->entries[m->n++];
}

/* "<module>-<version><suffix>" with a valid version: fill version. */
static bool is_versioned_name(const char *name, const char *module, const char *suffix,
			      char *version, size_t vlen)
{
	size_t mlen = strlen(module);
	size_t nlen = strlen(name);
	size_t slen = strlen(suffix);
	size_t v;

	if (nlen <= mlen + 1 + slen || strncmp(name, module, mlen) != 0 || name[mlen] != '-' ||
	    strcmp(name + nlen - slen, suffix) != 0)
		return false;
	v = nlen - slen - mlen - 1;
	if (v >= vlen)
		return false;
	memcpy(version, name + mlen + 1, v);
	version[v] = '\0';
	return release_version_check_released(version, NULL) == 0;
}

/* A release's ".asc"/".sig", or "<module>-<version>.tar.sign": fill rn's version. */
static bool is_signature_name(const char *name, const char *module, struct release_name *rn)
{
	char release[NAME_MAX + 1];
	size_t nlen = strlen(name);

	if (is_versioned_name(name, module, TAR_SIGN_SUFFIX, rn->version, sizeof(rn->version)))
		return true;
	if (nlen <= 4 || nlen - 4 >= sizeof(release) ||
	    (strcmp(name + nlen - 4, ".asc") != 0 && strcmp(name + nlen - 4, ".sig") != 0))
		return false;
	memcpy(release, name, nlen - 4);
	release[nlen - 4] = '\0';
	return release_name_parse_released(release, rn, NULL) == 0 && strcmp(rn->module, module) == 0;
}

/* "<release>.tlog-proof" of a release of module: fill rn. */
static bool is_proof_name(const char *name, const char *module, struct release_name *rn)
{
	char release[NAME_MAX + 1];
	size_t nlen = strlen(name), slen = strlen(TREE_PROOF_SUFFIX);

	if (nlen <= slen || nlen - slen >= sizeof(release) ||
	    strcmp(name + nlen - slen, TREE_PROOF_SUFFIX) != 0)
		return false;
	memcpy(release, name, nlen - slen);
	release[nlen - slen] = '\0';
	return release_name_parse_released(release, rn, NULL) == 0 && strcmp(rn->module, module) == 0;
}

static void classify(struct tree_entry *t, const char *module, const struct stat *st)
{
	if (S_ISLNK(st->st_mode) && strncmp(t->name, LATEST_PREFIX, strlen(LATEST_PREFIX)) == 0)
		t->kind = TREE_LATEST;
	else if (S_ISREG(st->st_mode) && release_name_parse_released(t->name, &t->rn, NULL) == 0 &&
		 strcmp(t->rn.module, module) == 0)
		t->kind = TREE_RELEASE;
	else if (S_ISREG(st->st_mode) &&
		 is_versioned_name(t->name, module, SUM_SUFFIX, t->rn.version, sizeof(t->rn.version)))
		t->kind = TREE_SHA256SUM;
	else if (S_ISREG(st->st_mode) && is_signature_name(t->name, module, &t->rn))
		t->kind = TREE_SIGNATURE;
	else if (S_ISREG(st->st_mode) && is_proof_name(t->name, module, &t->rn))
		t->kind = TREE_PROOF;
	else
		t->kind = TREE_OTHER;
}

/* Add every entry of the directory dir_fd (named dir) except dot files. */
static int scan_dir(int dir_fd, const char *dir, const char *module, struct tree_module *m,
		    bool top, struct pst_err *e)
{
	int walk_fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd >= 0 ? fdopendir(walk_fd) : NULL;
	struct dirent *de;
	struct stat st;
	struct tree_entry *t;
	int rc = 0;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "%s/%s: cannot read: %s", module, dir, strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_name[0] == '.' || !utf8_valid(de->d_name, strlen(de->d_name)))
			continue;
		if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (top && (S_ISDIR(st.st_mode) || strcmp(de->d_name, "cache.json") == 0))
			continue;
		t = entry_new(m);
		if (t == NULL) {
			rc = pst_fail(e, ENOMEM, "out of memory");
			break;
		}
		str_copy(t->dir, sizeof(t->dir), dir);
		str_copy(t->name, sizeof(t->name), de->d_name);
		t->size = st.st_size;
		t->mtime = st.st_mtime;
		classify(t, module, &st);
		if (top && t->kind != TREE_OTHER)
			t->kind = TREE_OTHER;
	}
	closedir(dh);
	return rc;
}

static int scan_subdirs(int module_fd, const char *module, struct tree_module *m,
			struct pst_err *e)
{
	int walk_fd = openat(module_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd >= 0 ? fdopendir(walk_fd) : NULL;
	struct dirent *de;
	struct stat st;
	int sub;
	int rc = 0;

	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "%s: cannot read: %s", module, strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_name[0] == '.' || fstatat(module_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || strlen(de->d_name) > NAME_MAX)
			continue;
		sub = openat(module_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue;
		rc = scan_dir(sub, de->d_name, module, m, false, e);
		close(sub);
	}
	closedir(dh);
	return rc;
}

static int entry_order(const void *pa, const void *pb)
{
	const struct tree_entry *a = pa;
	const struct tree_entry *b = pb;
	int c;

	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	if (a->kind == TREE_RELEASE || a->kind == TREE_SHA256SUM || a->kind == TREE_SIGNATURE) {
		c = release_version_compare(a->rn.version, b->rn.version);
		if (c != 0)
			return c;
	}
	c = strcmp(a->dir, b->dir);
	return c != 0 ? c : strcmp(a->name, b->name);
}

int tree_scan_module(int module_fd, const char *module, struct tree_module *out,
		     struct pst_err *e)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = scan_dir(module_fd, ".", module, out, true, e);
	if (rc == 0)
		rc = scan_subdirs(module_fd, module, out, e);
	if (rc < 0) {
		tree_module_free(out);
		return rc;
	}
	if (out->n > 0)
		qsort(out->entries, out->n, sizeof(out->entries[0]), entry_order);
	return 0;
}

const struct tree_entry *tree_find_version(const struct tree_module *m, const char *version)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_RELEASE &&
		    release_version_same(m->entries[i].rn.version, version))
			return &m->entries[i];
	}
	return NULL;
}

const struct tree_entry *tree_find_file(const struct tree_module *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_RELEASE && strcmp(m->entries[i].name, name) == 0)
			return &m->entries[i];
	}
	return NULL;
}

void tree_module_free(struct tree_module *m)
{
	free(m->entries);
	memset(m, 0, sizeof(*m));
}

int tree_release_dir_open(int sources_fd, const char *module, const char *dir, struct pst_err *e)
{
	int module_fd = tree_module_open(sources_fd, module, 0, e);
	int fd;

	if (module_fd < 0)
		return module_fd;
	fd = openat(module_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(module_fd);
	if (fd < 0)
		return pst_fail(e, errno, "sources/%s/%s: cannot open: %s", module, dir, strerror(errno));
	return fd;
}

int tree_module_open(int sources_fd, const char *module, int create, struct pst_err *e)
{
	int fd;

	if (!name_is_module(module))
		return pst_fail(e, EINVAL, "'%s' is not a module name", module);
	fd = openat(sources_fd, module, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(sources_fd, module, 0755) != 0 && errno != EEXIST)
			return pst_fail(e, errno, "sources/%s: cannot create: %s", module,
					strerror(errno));
		if (fsync(sources_fd) != 0)
			return pst_fail(e, errno, "sources: cannot sync: %s", strerror(errno));
		fd = openat(sources_fd, module, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return pst_fail(e, errno, "sources/%s: cannot open: %s", module, strerror(errno));
	return fd;
}
