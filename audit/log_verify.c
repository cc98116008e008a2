/*
 * postern-audit verify (log_verify.h). Read-only: it opens everything
 * without following symlinks and changes nothing.
 */
#define _GNU_SOURCE
#include "log_verify.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build_config.h"
#include "ledger.h"
#include "policy.h"
#include "safefile.h"
#include "text.h"
#include "verify.h"

#define PROG "postern-audit verify"

static const char usage_text[] =
	"usage: postern-audit verify [-C CONFIG] [--vkey FILE|KEY]\n"
	"Checks on the server that the ledger, the release log and the tree agree:\n"
	"the log's signature and every entry, <state>/history/log.size, the ledger's\n"
	"lines against the log's entries one for one, the tree against the log.\n"
	"\n"
	"  -C, --config FILE  postern.yaml (default " POSTERN_CONFIG_FILE ")\n"
	"      --vkey FILE|KEY  the key mirrors pin (default: the tree's log/vkey,\n"
	"                     which proves the log consistent, not whose it is)\n"
	"  -h, --help         this text\n"
	"Needs to read <state> (root, or the postern group).\n"
	"Exit status: 0 all agree, 1 something differs (each difference printed),\n"
	"2 the log, the ledger or the key cannot be read.\n";

struct records {
	struct ledger_record *r;
	size_t n, cap;
	bool oom;
};

static bool collect(const struct ledger_record *r, const char *line, void *arg)
{
	struct records *all = arg;
	struct ledger_record *bigger;

	(void)line;
	if (all->n == all->cap) {
		all->cap = all->cap * 2 + 1024;
		bigger = realloc(all->r, all->cap * sizeof(*bigger));
		if (bigger == NULL)
			return !(all->oom = true);
		all->r = bigger;
	}
	all->r[all->n++] = *r;
	return true;
}

static int fail(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why);
	return VERIFY_ERROR;
}

/* The file line of entry le that is the record's release (file or gone as the op says). */
static bool names_release(const struct log_entry *le, const struct ledger_record *r)
{
	char path[3 * LOG_WORD_MAX];
	bool gone = strcmp(r->op, "delete") == 0;
	size_t i;

	snprintf(path, sizeof(path), "sources/%s/%s/%s", r->module, r->dir, r->file);
	for (i = 0; i < le->nfiles; i++) {
		if (le->files[i].gone == gone && strcmp(le->files[i].path, path) == 0)
			return strcmp(le->files[i].sha256, r->sha256) == 0;
	}
	return false;
}

static bool same_change(const struct log_entry *le, const struct ledger_record *r)
{
	return strcmp(le->op, r->op) == 0 && le->when == r->when &&
	       strcmp(le->module, r->module) == 0 && strcmp(le->version, r->version) == 0 &&
	       strcmp(le->uploader, r->user) == 0 && strcmp(le->signer, r->signer) == 0 &&
	       strcmp(le->forced, r->forced) == 0 && strcmp(le->attic, r->attic) == 0 &&
	       names_release(le, r);
}

/* The ledger's last cp.size lines against the log's entries; the number that differ. */
static int compare_ledger(const struct log_view *v, const struct records *all)
{
	uint64_t n = v->cp.size, i;
	size_t first;
	struct log_entry le;
	struct pst_err e = {{0}};
	int diffs = 0;

	if (all->n < n) {
		printf("DIFFERS the log has %llu entries but the ledger only %zu lines: entries were "
		       "added that the server never recorded, or the ledger was cut\n",
		       (unsigned long long)n, all->n);
		return 1;
	}
	first = all->n - (size_t)n;
	for (i = 0; i < n; i++) {
		const struct ledger_record *r = &all->r[first + i];

		if (!log_view_entry(v, i, &le, &e)) {
			printf("DIFFERS log entry %llu: %s\n", (unsigned long long)i, e.msg);
			diffs++;
		} else if (!same_change(&le, r)) {
			printf("DIFFERS log entry %llu (%s %s %s) is not ledger line %zu (%s %s %s by %s)\n",
			       (unsigned long long)i, le.op, le.module, le.version, first + i + 1,
			       r->op, r->module, r->version, r->user);
			diffs++;
		}
	}
	printf("ledger: %zu lines; the last %llu are the log's entries%s\n", all->n,
	       (unsigned long long)n, diffs ? " except where DIFFERS says" : ", one for one");
	if (first > 0)
		printf("NOTE the first %zu ledger lines are from before the log began\n", first);
	return diffs;
}

/* <state>/history/log.size and log.pending against the log. */
static int compare_state(int state_fd, const struct log_view *v)
{
	char text[32] = "";
	int hist = openat(state_fd, "history", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = hist < 0 ? -1 : openat(hist, "log.size", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	bool pending = hist >= 0 && faccessat(hist, "log.pending", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	unsigned long long size = got > 0 ? strtoull(text, NULL, 10) : 0;
	int diffs = 0;

	if (fd >= 0)
		close(fd);
	if (hist >= 0)
		close(hist);
	if (got < 0 && v->cp.size > 0) {
		printf("DIFFERS <state>/history/log.size cannot be read but the log has %llu entries\n",
		       (unsigned long long)v->cp.size);
		diffs++;
	} else if (got >= 0 && size != v->cp.size) {
		printf("DIFFERS <state>/history/log.size says %llu, the log has %llu entries\n", size,
		       (unsigned long long)v->cp.size);
		diffs++;
	}
	if (pending) {
		printf("DIFFERS a change's record is pending (<state>/history/log.pending): the daemon "
		       "finishes it at its next change or start; run this again then\n");
		diffs++;
	}
	return diffs;
}

static int open_log(int tree_fd, struct tlog_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->rule = (struct sf_rule){.uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 022};
	d->fd = openat(tree_fd, "log", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return d->fd;
}

static int tree_vkey(struct tlog_dir *d, struct tlog_vkey *k, struct pst_err *e)
{
	unsigned char *data;
	size_t len;
	int rc = tlog_dir_read(d, "vkey", TLOG_VKEY_MAX + 1, &data, &len, e);

	if (rc < 0)
		return rc;
	rc = tlog_vkey_parse((char *)data, strcspn((char *)data, "\n"), k, e);
	free(data);
	if (rc == 0)
		printf("NOTE checked with the tree's own log/vkey: this proves the log consistent, not "
		       "that it is the one mirrors pinned; give --vkey with the published key\n");
	return rc;
}

static int verify_all(const struct policy_settings *set, const char *vkey_arg)
{
	struct records all = {0};
	struct log_view v;
	struct tlog_vkey k;
	struct tlog_dir d;
	struct pst_err e = {{0}};
	struct stat st;
	int tree_fd, state_fd, diffs = 0, rc;

	tree_fd = sf_open_dir_path(set->tree, NULL, 0, &e);
	if (tree_fd < 0)
		return fail(set->tree, e.msg);
	state_fd = sf_open_dir_path(set->state, NULL, 0, &e);
	if (state_fd < 0)
		return fail(set->state, e.msg);
	if (open_log(tree_fd, &d) < 0)
		return fail("<tree>/log", "no release log: the daemon makes it at the first change");
	if ((vkey_arg != NULL ? verify_load_vkey(vkey_arg, &k, &e) : tree_vkey(&d, &k, &e)) < 0)
		return fail("the verifier key", e.msg);
	rc = log_view_open(&v, tlog_dir_read, &d, &k, &e);
	if (rc != VERIFY_OK)
		return fail("<tree>/log", e.msg), rc;
	printf("log: %llu entries, checkpoint signed by %s, every entry and tile agrees\n",
	       (unsigned long long)v.cp.size, k.name);
	/* The ledger is the daemon's: the user that owns the tree. */
	if (fstat(tree_fd, &st) != 0 ||
	    ledger_each_as(state_fd, st.st_uid, collect, &all, &e) < 0 || all.oom)
		return fail("<state>/ledger", all.oom ? "out of memory" : e.msg);
	diffs += compare_state(state_fd, &v);
	diffs += compare_ledger(&v, &all);
	rc = verify_mirror(&v, tree_fd);
	if (rc == VERIFY_ERROR)
		return VERIFY_ERROR;
	diffs += rc != VERIFY_OK;
	printf("%s\n", diffs == 0 ? "ledger, log and tree agree" : "ledger, log and tree DIFFER");
	free(all.r);
	log_view_close(&v);
	return diffs == 0 ? VERIFY_OK : VERIFY_MISMATCH;
}

int audit_verify_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{"config", required_argument, NULL, 'C'}, {"vkey", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	const char *config = POSTERN_CONFIG_FILE, *vkey = NULL;
	struct policy *p = NULL;
	struct pst_err e = {{0}};
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:h", longs, NULL)) != -1) {
		switch (c) {
		case 'C': config = optarg; break;
		case 'k': vkey = optarg; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return VERIFY_ERROR;
		}
	}
	if (optind != argc)
		return fail(argv[optind], "verify takes no operands (see --help)");
	if (policy_load(config, &p, &e) < 0)
		return fail(config, e.msg);
	rc = verify_all(policy_settings(p), vkey);
	policy_free(p);
	return rc;
}
