/*
 * What happens after the tree changed: the admin's hooks (argv lists from
 * the policy, run with an environment built from nothing) and the optional
 * release mail. A hook that fails is logged; it never undoes the change.
 */
#ifndef POSTERN_HOOKS_H
#define POSTERN_HOOKS_H

#include <stdbool.h>

#include "installd.h"
#include "ledger.h"

#define HOOK_TIMEOUT 300

struct hook_facts {
	const char *module;
	const char *version;
	const char *user;
	const char *file;
	const char *dir;
	const char *sha256;
	bool maintainer;
	const char *news_head;     /* "" when the tarball has no NEWS */
	const char *signature;     /* the published signature file, or NULL: unsigned */
	const char *signer;        /* its signer's fingerprint, or NULL */
};

/* news_head: the checker's NEWS excerpt, cleaned by check_verdict_parse() ("" for none). */
void hook_facts_from_install(struct hook_facts *f, const struct ledger_record *r,
			     const char *news_head);

/* hooks.after_install, then the release mail when mail.to is set. */
void hooks_after_install(const struct installd *d, const struct hook_facts *f);

/* hooks.mirror_sync, now (the caller debounces). */
void hooks_mirror_sync(const struct installd *d);

#endif
