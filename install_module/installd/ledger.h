/*
 * The ledger: <state>/ledger, one line per install or deletion, appended
 * and fsynced, never rewritten. `list` and `delete-own` read it.
 *
 *   time=2026-12-03T06:40:00Z op=install user=alice module=gtk version=4.14.0
 *   file=gtk-4.14.0.tar.xz sha256=<hex> maintainer=yes basis=maintainer dir=4.14
 *   forced=no attic=- signature=gtk-4.14.0.tar.xz.asc signer=<fingerprint>
 *
 * (one line), then, for a CI release only: ci=ci:<issuer>/<project>
 * ci_pipeline= ci_job= ci_sha= ci_user=. signature and signer are "-" for an unsigned release, and
 * absent from lines written before signatures existed (parsed as "-"). Every value is a plain word of [A-Za-z0-9._+,:/@-]: the names
 * were validated before they got here, and ledger_format() refuses anything
 * else, so a line can never be forged by a value.
 */
#ifndef POSTERN_LEDGER_H
#define POSTERN_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "errmsg.h"
#include "postern_limits.h"
#include "release_name.h"

#define LEDGER_LINE_MAX 2048
#define LEDGER_SIGNER_LEN 72      /* a fingerprint (up to 64 hex digits), "-" when unsigned */
#define LEDGER_CI_MAX 256         /* a log entry's word (log_entry.h) */

struct ledger_record {
	time_t when;
	char op[16];              /* "install" or "delete" */
	char user[NAME_USER_MAX + 1];  /* sized as installd_peer's; ledger_parse refuses longer */
	char module[NAME_MODULE_MAX + 1];
	char version[RELEASE_VERSION_MAX + 1];
	char file[RELEASE_FILE_MAX + 1];
	char sha256[65];
	char maintainer[4];       /* "yes" / "no" */
	char basis[16];
	char dir[RELEASE_DIR_MAX];
	char forced[4];
	char attic[256];          /* where a deletion or --force put the old files, or "-" */
	char signature[RELEASE_FILE_MAX + 16];  /* the published signature file, or "-" */
	char signer[LEDGER_SIGNER_LEN];  /* its signer's fingerprint (upper-case hex), or "-" */
	/* A CI release (user is then postern-ci's): "ci:<issuer>/<project>" and the
	 * job, written only when ci is set. */
	char ci[LEDGER_CI_MAX];
	char ci_pipeline[32];
	char ci_job[32];
	char ci_sha[65];
	char ci_user[256];
};

/* Whether r names a signed release (signature and signer set). */
bool ledger_signed(const struct ledger_record *r);

/* The record as one line ending in '\n'; false when a value is not a plain word. */
bool ledger_format(const struct ledger_record *r, char *out, size_t outlen);

/* Parse one line (with or without its '\n'); false when it is not a record. */
bool ledger_parse(const char *line, struct ledger_record *r);

/* Append line to <state>/ledger (created postern 0640), under flock, fsynced. */
int ledger_append(int state_fd, const char *line, struct pst_err *e);

/*
 * Append line to dir_fd/name (created 0640), under flock, fsynced. With
 * once, nothing is written when the file already ends with that line.
 */
int ledger_append_file(int dir_fd, const char *name, const char *line, bool once,
		       struct pst_err *e);

/* Call fn for every record, oldest first, until it returns false. */
typedef bool ledger_visit_fn(const struct ledger_record *r, const char *line, void *arg);
int ledger_each(int state_fd, ledger_visit_fn *fn, void *arg, struct pst_err *e);
/* The same for a reader that is not the daemon: the ledger must be owner's. */
int ledger_each_as(int state_fd, uid_t owner, ledger_visit_fn *fn, void *arg, struct pst_err *e);
/* The same over dir_fd/name, a file of ledger lines (a per-module or per-user index). */
int ledger_each_file(int dir_fd, const char *name, ledger_visit_fn *fn, void *arg,
		     struct pst_err *e);


#endif
