/*
 * postern-verify --mirror TREE: the files of a whole mirror against its log.
 * The log's entries, replayed in order, say which files the tree holds and
 * with which SHA-256; the tree's sections (every top directory a logged path
 * starts with, sources/ always) are walked without following symlinks.
 * Not logged on purpose: the LATEST-IS symlinks and each module's
 * cache.json, which the server derives from the files and rewrites, and
 * each release's <file>.tlog-proof, which is checked against the log.
 */
#include "verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct logged {
	char path[LOG_WORD_MAX + 1];
	char sha256[65];
	bool gone, seen;
	uint64_t seq;             /* the entry that said it last */
};

struct mirror {
	const struct log_view *v;
	struct logged *files;
	size_t n, cap;
	int diffs;
};

static int by_path_then_seq(const void *a, const void *b)
{
	const struct logged *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static bool add(struct mirror *m, const struct log_file *f, uint64_t seq)
{
	struct logged *bigger;

	if (m->n == m->cap) {
		m->cap = m->cap * 2 + 256;
		bigger = realloc(m->files, m->cap * sizeof(*bigger));
		if (bigger == NULL)
			return false;
		m->files = bigger;
	}
	memset(&m->files[m->n], 0, sizeof(m->files[0]));
	memcpy(m->files[m->n].path, f->path, sizeof(f->path));
	memcpy(m->files[m->n].sha256, f->sha256, sizeof(f->sha256));
	m->files[m->n].gone = f->gone;
	m->files[m->n++].seq = seq;
	return true;
}

/* Every path's last word in the log, sorted by path. */
static int replay(struct mirror *m, struct pst_err *e)
{
	struct log_entry le;
	uint64_t i;
	size_t k, out = 0;

	for (i = 0; i < m->v->cp.size; i++) {
		if (!log_view_entry(m->v, i, &le, e))
			return VERIFY_ERROR;
		for (k = 0; k < le.nfiles; k++)
			if (!add(m, &le.files[k], i))
				return pst_fail(e, ENOMEM, "out of memory"), VERIFY_ERROR;
	}
	qsort(m->files, m->n, sizeof(m->files[0]), by_path_then_seq);
	for (k = 0; k < m->n; k++) {
		if (out > 0 && strcmp(m->files[out - 1].path, m->files[k].path) == 0)
			out--;
		m->files[out++] = m->files[k];
	}
	m->n = out;
	return VERIFY_OK;
}

static void differs(struct mirror *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void differs(struct mirror *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	m->diffs++;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct logged *)a)->path, ((const struct logged *)b)->path);
}

static struct logged *find(struct mirror *m, const char *rel)
{
	struct logged key;

	memcpy(key.path, rel, strlen(rel) + 1);    /* walk() keeps rel within LOG_WORD_MAX */
	return bsearch(&key, m->files, m->n, sizeof(m->files[0]), by_path);
}

/* <file>.tlog-proof beside a published file: true when it was one (checked, reported). */
static bool checked_proof(struct mirror *m, int dir_fd, const char *name, const char *rel)
{
	static const char suffix[] = ".tlog-proof";
	char release[LOG_WORD_MAX + 1];
	size_t n = strlen(rel), s = strlen(suffix);
	struct logged *l;
	struct pst_err e = {{0}};

	if (n <= s || strcmp(rel + n - s, suffix) != 0)
		return false;
	snprintf(release, sizeof(release), "%.*s", (int)(n - s), rel);
	l = find(m, release);
	if (l == NULL || l->gone)
		return false;
	if (!verify_proof_in_tree(m->v, dir_fd, name, &e))
		differs(m, "CHANGED %s: the inclusion proof does not hold: %s\n", rel, e.msg);
	return true;
}

static void check_file(struct mirror *m, int dir_fd, const char *name, const char *rel)
{
	struct logged *l;
	struct pst_err e = {{0}};
	char sha[65];
	int fd;
	struct stat st;

	if (checked_proof(m, dir_fd, name, rel))
		return;
	l = find(m, rel);
	/* O_NONBLOCK: a FIFO planted in the tree must not hang a cron job. */
	fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		differs(m, "UNLOGGED %s: %s%s\n", rel, "not a regular file", "");
		return;
	}
	if (fd < 0 || verify_sha256_fd(fd, sha, &e) < 0) {
		differs(m, "UNREADABLE %s: %s%s\n", rel, fd < 0 ? strerror(errno) : e.msg, "");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	if (l == NULL || l->gone) {
		differs(m, "UNLOGGED %s: sha256 %s%s, no entry of the log published it\n", rel, sha,
			l == NULL ? "" : " (the log says it was removed)");
		return;
	}
	l->seen = true;
	if (strcmp(l->sha256, sha) != 0)
		differs(m, "CHANGED %s: sha256 %s, the log says %s\n", rel, sha, l->sha256);
}

static bool derived(const char *name, unsigned char type)
{
	return type == DT_LNK || strcmp(name, "cache.json") == 0;
}

static void walk(struct mirror *m, int dir_fd, const char *rel, int depth)
{
	DIR *d;
	struct dirent *de;
	char child[LOG_WORD_MAX + 2];
	int fd, sub;

	fd = dup(dir_fd);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (d == NULL) {
		differs(m, "UNREADABLE %s: %s%s\n", rel, strerror(errno), "");
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    derived(de->d_name, de->d_type))
			continue;
		if (snprintf(child, sizeof(child), "%s/%s", rel, de->d_name) > LOG_WORD_MAX) {
			differs(m, "UNLOGGED %s/%s: %s\n", rel, de->d_name, "a path no entry can name");
			continue;
		}
		sub = openat(dir_fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && depth < 16)
			walk(m, sub, child, depth + 1);
		else if (sub < 0 && errno == ENOTDIR)
			check_file(m, dir_fd, de->d_name, child);
		else if (sub < 0)
			differs(m, "UNREADABLE %s: %s%s\n", child, strerror(errno), "");
		if (sub >= 0)
			close(sub);
	}
	closedir(d);
}

/* The top directories logged paths start in (sources always), each walked once. */
static void walk_sections(struct mirror *m, int tree_fd)
{
	char done[64][LOG_WORD_MAX + 1];
	size_t ndone = 0, i, k;
	int fd;

	snprintf(done[ndone++], sizeof(done[0]), "sources");
	for (k = 0; k < m->n && ndone < 64; k++) {
		size_t len = strcspn(m->files[k].path, "/");

		for (i = 0; i < ndone; i++)
			if (strlen(done[i]) == len && strncmp(done[i], m->files[k].path, len) == 0)
				break;
		if (i == ndone)
			snprintf(done[ndone++], sizeof(done[0]), "%.*s", (int)len, m->files[k].path);
	}
	for (i = 0; i < ndone; i++) {
		fd = openat(tree_fd, done[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				differs(m, "UNREADABLE %s: %s%s\n", done[i], strerror(errno), "");
			continue;
		}
		walk(m, fd, done[i], 0);
		close(fd);
	}
}

int verify_mirror(const struct log_view *v, int tree_fd)
{
	struct mirror m = {.v = v};
	struct pst_err e = {{0}};
	size_t k, live = 0;
	int rc = replay(&m, &e);

	if (rc != VERIFY_OK) {
		fprintf(stderr, "postern-verify: %s\n", e.msg);
		free(m.files);
		return rc;
	}
	walk_sections(&m, tree_fd);
	for (k = 0; k < m.n; k++) {
		if (m.files[k].gone)
			continue;
		live++;
		if (!m.files[k].seen)
			differs(&m, "MISSING %s: the log published it (sha256 %s)%s, the mirror lacks it\n",
				m.files[k].path, m.files[k].sha256, "");
	}
	free(m.files);
	if (m.diffs > 0) {
		printf("%d difference%s between the mirror and the log of %llu entries\n", m.diffs,
		       m.diffs == 1 ? "" : "s", (unsigned long long)v->cp.size);
		return VERIFY_MISMATCH;
	}
	printf("OK the mirror holds exactly the %zu files the log of %llu entries publishes\n", live,
	       (unsigned long long)v->cp.size);
	return VERIFY_OK;
}
