/* What the auditor asked for: filters, and the records that pass them. */
#ifndef POSTERN_AUDIT_QUERY_H
#define POSTERN_AUDIT_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "trail.h"

#define QUERY_LIST_MAX 64

struct name_list {
	size_t count;
	const char *name[QUERY_LIST_MAX];
};

/* --signed: releases with or without a signature, or any record. */
enum signed_filter {
	SIGNED_ANY,
	SIGNED_YES,
	SIGNED_NO,
};

struct query {
	struct name_list users, modules, events, froms;
	struct name_list uploaders;     /* record_uploader() values: users or ci:<issuer>/<project> */
	enum signed_filter ci_only;     /* --ci: any record, CI releases only (YES), none (NO) */
	struct name_list signers;       /* fingerprints, upper-case hex */
	enum signed_filter signed_only;
	bool have_since, have_until;
	int64_t since_us, until_us;
	const char *sid;                /* `session ID`, or NULL */
};

/*
 * Add the comma-separated names of arg (kept by pointer; arg is modified)
 * to list. Returns 0 or -EINVAL (empty name, too many names).
 */
int name_list_add(struct name_list *list, char *arg, struct pst_err *e);

/*
 * Turn each name of list from index first on into a fingerprint as
 * postern-installd writes it (upper-case hex, no spaces), in place.
 * Returns 0 or -EINVAL when one is not 40 or 64 hex digits.
 */
int name_list_fingerprints(struct name_list *list, size_t first, struct pst_err *e);

/*
 * "yes" or "no" for a release (install_ok): its signed field, and "no" for
 * a record from before signatures were recorded; NULL for other events.
 */
const char *record_signed(const struct trail_record *r);

/*
 * Who released or tried to: the uploader field of a CI job's install
 * records ("ci:<issuer>/<project>"; user is then postern-ci's), else the
 * record's user.
 */
const char *record_uploader(const struct trail_record *r);

/* Whether r is about a CI job's upload. */
bool record_is_ci(const struct trail_record *r);

bool query_matches(const struct query *q, const struct trail_record *r);

/* A record kept for output, with where it came from. */
struct kept_record {
	struct trail_record r;
	const char *file;
	unsigned long line;
	size_t order;                   /* input order, breaks time ties */
};

struct record_set {
	struct kept_record *item;
	size_t count, cap;
};

/* Takes ownership of *r. Returns 0 or -ENOMEM. */
int record_set_add(struct record_set *set, struct trail_record *r,
		   const char *file, unsigned long line);

/* By time, then input order: a stable merge of several log files. */
void record_set_sort(struct record_set *set);

void record_set_free(struct record_set *set);

#endif
