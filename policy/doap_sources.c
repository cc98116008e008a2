/*
 * Reading DOAP files for import-doap. The files live in checkouts that
 * other accounts may write, so each is opened relative to its directory fd
 * without following symlinks, must be a regular file, and is capped in size
 * before libxml2 sees a byte of it; libxml2 itself runs in a confined child
 * as doap_parse_user (doap_confined.h), never as root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doap.h"
#include "doap_confined.h"
#include "doap_gen.h"
#include "policy_internal.h"
#include "safefile.h"
#include "text.h"
#include "text_show.h"

#define DOAP_SUFFIX ".doap"
#define DOAP_DIR_MAX 100000

static bool module_of(const char *file, char *module, size_t size)
{
	size_t len = strlen(file);
	size_t slen = strlen(DOAP_SUFFIX);

	if (len <= slen || strcmp(file + len - slen, DOAP_SUFFIX) != 0 || len - slen >= size)
		return false;
	memcpy(module, file, len - slen);
	module[len - slen] = '\0';
	return true;
}

/* Keep the user ids that can be postern users; say why others were left out.
 * Names and ids come from the file, so they are shown made printable. */
static size_t usable_users(const struct doap_maintainers *dm, const char *file,
			   const char **users)
{
	size_t i, j, n = 0;

	for (i = 0; i < dm->n; i++) {
		const struct doap_person *p = &dm->v[i];
		char who[128], id[128];

		text_safe_copy(who, sizeof(who), p->name ? p->name : "(no name)",
			       strlen(p->name ? p->name : "(no name)"), TEXT_REPLACE);
		if (p->userid == NULL) {
			fprintf(stderr, "postern-policy: import-doap: %s: warning: maintainer %s has "
				"no gnome:userid or foaf:accountName, left out\n", file, who);
			continue;
		}
		if (!name_is_user(p->userid)) {
			text_safe_copy(id, sizeof(id), p->userid, strlen(p->userid), TEXT_REPLACE);
			fprintf(stderr, "postern-policy: import-doap: %s: warning: maintainer %s: "
				"'%s' is not a valid user name, left out\n", file, who, id);
			continue;
		}
		for (j = 0; j < n && strcmp(users[j], p->userid) != 0; j++)
			;
		if (j == n)
			users[n++] = p->userid;
	}
	return n;
}

/* The file, checked and opened by root for the confined parser. */
static int parse_one(const struct doap_parser *parser, int dirfd, const char *file,
		     struct doap_maintainers *dm, struct pst_err *e)
{
	static const struct sf_rule rule = {
		.type = S_IFREG, .uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 0,
		.max_size = DOAP_FILE_MAX,
	};
	int fd = sf_openat(dirfd, file, O_RDONLY | O_NONBLOCK, &rule, NULL, e);
	int rc;

	if (fd < 0) {
		pst_err_prefix(e, "%s", file);
		return fd;
	}
	rc = doap_parse_confined(parser, fd, file, dm, e);
	close(fd);
	return rc;
}

/* One DOAP file: its module joins out->read, or (when broken) a failed list. */
static int import_file(const struct doap_parser *parser, int dirfd, const char *file,
		       struct gen_lists *out)
{
	const char *users[DOAP_MAINTAINERS_MAX];
	char module[NAME_MODULE_MAX + 1];
	struct doap_maintainers dm;
	struct pst_err e;
	size_t n;
	int rc;

	if (!module_of(file, module, sizeof(module)) || !name_is_module(module)) {
		fprintf(stderr, "postern-policy: import-doap: %s: not a valid module name, skipped\n",
			file);
		return 0;
	}
	if (gen_find(&out->read, module) != NULL || gen_find(&out->failed, module) != NULL ||
	    gen_find(&out->unusable, module) != NULL) {
		fprintf(stderr, "postern-policy: import-doap: %s: module %s was already read from "
			"another path, skipped\n", file, module);
		return gen_add(&out->failed, module, file, NULL, 0);
	}
	rc = parse_one(parser, dirfd, file, &dm, &e);
	if (rc < 0) {
		fprintf(stderr, "postern-policy: import-doap: %s\n", e.msg);
		rc = gen_add(&out->failed, module, file, NULL, 0);
		gen_sort(&out->failed);
		return rc;
	}
	n = usable_users(&dm, file, users);
	if (n == 0)
		fprintf(stderr, "postern-policy: import-doap: %s: warning: no maintainer with a "
			"usable user id; module %s keeps its previous entry, if any\n", file, module);
	rc = n == 0 ? gen_add(&out->unusable, module, file, NULL, 0)
		    : gen_add(&out->read, module, file, users, n);
	doap_maintainers_free(&dm);
	gen_sort(&out->read);
	gen_sort(&out->unusable);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.doap names in a directory, sorted, so the output does not depend on readdir order. */
static int list_dir(int dirfd, char ***names, size_t *n, struct pst_err *e)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return pst_fail(e, errno, "cannot list: %s", strerror(errno));
	}
	while ((de = readdir(d)) != NULL) {
		char module[NAME_MODULE_MAX + 1];
		if (de->d_name[0] == '.' || !module_of(de->d_name, module, sizeof(module)))
			continue;
		if (*n == cap) {
			char **bigger;
			cap = cap ? cap * 2 : 64;
			bigger = cap > DOAP_DIR_MAX ? NULL : realloc(v, cap * sizeof(*v));
			if (bigger == NULL)
				break;
			v = bigger;
		}
		if ((v[*n] = strdup(de->d_name)) == NULL)
			break;
		(*n)++;
	}
	closedir(d);
	if (de != NULL) {
		while (*n > 0)
			free(v[--(*n)]);
		free(v);
		return pst_fail(e, ENOMEM, "too many files or out of memory");
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_str);
	*names = v;
	return 0;
}

static int import_dir(const struct doap_parser *parser, int dirfd, struct gen_lists *out,
		      struct pst_err *e)
{
	char **names = NULL;
	size_t n = 0, i;
	int rc = list_dir(dirfd, &names, &n, e);

	for (i = 0; i < n; i++) {
		if (rc == 0 && import_file(parser, dirfd, names[i], out) < 0)
			rc = pst_fail(e, ENOMEM, "out of memory");
		free(names[i]);
	}
	free(names);
	return rc;
}

/* A path is a directory of DOAP files or one file; which one is seen on the fd. */
static int import_path(const struct doap_parser *parser, const char *path,
		       struct gen_lists *out, struct pst_err *e)
{
	char parent[POLICY_PATH_MAX];
	const char *slash;
	int dirfd, rc;

	dirfd = sf_open_dir_path(path, NULL, 0, e);
	if (dirfd >= 0) {
		rc = import_dir(parser, dirfd, out, e);
		close(dirfd);
		return rc;
	}
	if (dirfd != -ENOTDIR)
		return dirfd;
	slash = strrchr(path, '/');
	if (slash == NULL || (size_t)(slash - path) >= sizeof(parent))
		return pst_fail(e, EINVAL, "%s: not an absolute path", path);
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	dirfd = sf_open_dir_path(parent[0] ? parent : "/", NULL, 0, e);
	if (dirfd < 0)
		return dirfd;
	rc = import_file(parser, dirfd, slash + 1, out) < 0
		? pst_fail(e, ENOMEM, "out of memory") : 0;
	close(dirfd);
	return rc;
}

int gen_from_sources(const char *const *paths, size_t npaths, const struct doap_parser *parser,
		     struct gen_lists *out, struct pst_err *e)
{
	size_t i;
	int rc;

	for (i = 0; i < npaths; i++) {
		if (paths[i][0] != '/')
			return pst_fail(e, EINVAL, "%s: not an absolute path", paths[i]);
		rc = import_path(parser, paths[i], out, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

void gen_lists_free(struct gen_lists *l)
{
	gen_free(&l->read);
	gen_free(&l->failed);
	gen_free(&l->unusable);
}
