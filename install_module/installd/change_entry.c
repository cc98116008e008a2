/*
 * A change's release log entry from its record and the tree (change_entry.h).
 * MUST: hash what is there now, never what a client said; name only files
 * under sources/.
 */
#define _GNU_SOURCE
#include "change_entry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attic.h"
#include "safefile.h"
#include "text.h"
#include "tree_index.h"
#include "tree_scan.h"

static int add_file(struct log_entry *le, const struct ledger_record *r, const char *name,
		    const char *sha256, bool gone, struct pst_err *e)
{
	struct log_file *f;

	if (le->nfiles >= LOG_ENTRY_FILES_MAX)
		return pst_fail(e, E2BIG, "%s/%s: more files than one log entry holds", r->module,
				r->dir);
	f = &le->files[le->nfiles];
	if (snprintf(f->path, sizeof(f->path), "sources/%s/%s/%s", r->module, r->dir, name) >=
	    (int)sizeof(f->path) || !str_copy(f->sha256, sizeof(f->sha256), sha256))
		return pst_fail(e, ENAMETOOLONG, "%s: a path too long for the release log", name);
	f->gone = gone;
	le->nfiles++;
	return 0;
}

/* name in dir_fd, hashed into the entry; a missing file is skipped when optional. */
static int add_hashed(struct log_entry *le, const struct ledger_record *r, int dir_fd,
		      const char *name, bool gone, bool optional, struct pst_err *e)
{
	char hex[65];
	int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	if (fd < 0 && errno == ENOENT && optional)
		return 0;
	if (fd < 0)
		return pst_fail(e, errno, "%s/%s/%s: cannot open to log it: %s", r->module, r->dir,
				name, strerror(errno));
	rc = tree_hash_fd(fd, hex, e);
	close(fd);
	return rc < 0 ? rc : add_file(le, r, name, hex, gone, e);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in an attic event, sorted: one spelling of the entry. */
static int event_names(int event_fd, char *names[], size_t cap, size_t *n, struct pst_err *e)
{
	int walk_fd = openat(event_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dh = walk_fd < 0 ? NULL : fdopendir(walk_fd);
	struct dirent *de;
	int rc = 0;

	*n = 0;
	if (dh == NULL) {
		if (walk_fd >= 0)
			close(walk_fd);
		return pst_fail(e, errno, "the attic event cannot be read: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(dh)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (*n >= cap || (names[*n] = strdup(de->d_name)) == NULL)
			rc = pst_fail(e, E2BIG, "the attic event holds too many files to log");
		else
			(*n)++;
	}
	closedir(dh);
	qsort(names, *n, sizeof(*names), by_name);
	return rc;
}

static bool replaced(const struct log_entry *le, const struct ledger_record *r, const char *name)
{
	char path[LOG_WORD_MAX + 1];
	size_t i;

	snprintf(path, sizeof(path), "sources/%s/%s/%s", r->module, r->dir, name);
	for (i = 0; i < le->nfiles; i++) {
		if (!le->files[i].gone && strcmp(le->files[i].path, path) == 0)
			return true;
	}
	return false;
}

/* An inclusion proof file: derived from the log, so never in it. */
static bool is_proof(const char *name)
{
	size_t n = strlen(name), s = strlen(TREE_PROOF_SUFFIX);

	return n > s && strcmp(name + n - s, TREE_PROOF_SUFFIX) == 0;
}

/*
 * gone lines for what the record's attic event holds (but not what was
 * put back by name, nor inclusion proofs).
 */
static int add_attic(struct log_entry *le, const struct ledger_record *r, int attic_fd,
		     struct pst_err *e)
{
	char *names[LOG_ENTRY_FILES_MAX];
	size_t n = 0, i;
	int event_fd = attic_event_reopen(attic_fd, r->module, r->attic);
	int rc;

	if (event_fd < 0)
		return pst_fail(e, -event_fd, "%s: the change's attic event cannot be opened",
				r->attic);
	rc = event_names(event_fd, names, LOG_ENTRY_FILES_MAX, &n, e);
	for (i = 0; rc == 0 && i < n; i++) {
		if (!replaced(le, r, names[i]) && !is_proof(names[i]))
			rc = add_hashed(le, r, event_fd, names[i], true, false, e);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	close(event_fd);
	return rc;
}

static int add_published(struct log_entry *le, const struct installd *d,
			 const struct ledger_record *r, struct pst_err *e)
{
	char sum[NAME_MAX + 1];
	int dir_fd = tree_release_dir_open(d->sources_fd, r->module, r->dir, e);
	int rc;

	if (dir_fd < 0)
		return dir_fd;
	snprintf(sum, sizeof(sum), "%s-%s.sha256sum", r->module, r->version);
	rc = add_file(le, r, r->file, r->sha256, false, e);
	if (rc == 0 && ledger_signed(r))
		rc = add_hashed(le, r, dir_fd, r->signature, false, false, e);
	if (rc == 0)
		rc = add_hashed(le, r, dir_fd, sum, false, true, e);
	close(dir_fd);
	return rc;
}

int change_entry_build(const struct installd *d, const struct ledger_record *r,
		       struct log_entry *le, struct pst_err *e)
{
	bool install = strcmp(r->op, "install") == 0;
	int rc = 0;

	memset(le, 0, sizeof(*le));
	if (!str_copy(le->op, sizeof(le->op), r->op) ||
	    !str_copy(le->module, sizeof(le->module), r->module) ||
	    !str_copy(le->version, sizeof(le->version), r->version) ||
	    !str_copy(le->uploader, sizeof(le->uploader), r->ci[0] ? r->ci : r->user) ||
	    !str_copy(le->signer, sizeof(le->signer), r->signer) ||
	    !str_copy(le->forced, sizeof(le->forced), r->forced) ||
	    !str_copy(le->attic, sizeof(le->attic), r->attic))
		return pst_fail(e, EINVAL, "the change's record does not fit a log entry");
	le->when = r->when;
	if (install)
		rc = add_published(le, d, r, e);
	if (rc == 0 && strcmp(r->attic, "-") != 0)
		rc = add_attic(le, r, d->attic_fd, e);
	if (rc == 0 && le->nfiles == 0)
		rc = pst_fail(e, ENOENT, "%s: the change left nothing to log", r->file);
	return rc;
}

int change_entry_text(const struct installd *d, const struct ledger_record *r, char *out,
		      size_t cap, struct pst_err *e)
{
	struct log_entry le;
	int rc = change_entry_build(d, r, &le, e);

	return rc < 0 ? rc : log_entry_format(&le, out, cap, e);
}
