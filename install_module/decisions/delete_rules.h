/*
 * Whether delete-own may move a released file to the attic: one table of
 * rules over plain facts, no I/O. op_delete.c gathers the facts and asks
 * at each stage; the first rule that refuses decides.
 *
 *   stage     facts known                        rules, in order
 *   request   name, policy                       release_name, policy_allows
 *   module    whether the module has a directory  module_has_releases
 *   tree      the module's files                  file_released
 *   ledger    who installed it and when, now,    installed_by_asker, deletes_enabled,
 *             the latest time seen before now    clock_not_behind, within_delete_window
 *
 * Nobody deletes another user's release, the release team included; the
 * release team is not bound by the window. A clock set back (behind the
 * install, or behind any time the daemon has already seen) refuses.
 */
#ifndef POSTERN_DELETE_RULES_H
#define POSTERN_DELETE_RULES_H

#include <stdbool.h>
#include <time.h>

#include "decision.h"
#include "policy.h"

enum delete_stage {
	DELETE_STAGE_REQUEST,
	DELETE_STAGE_MODULE,
	DELETE_STAGE_TREE,
	DELETE_STAGE_LEDGER,
};

struct delete_facts {
	const char *file;
	const char *name_error;        /* why file is no release name, or NULL */
	const char *module;
	enum policy_basis basis;       /* policy_may(..., POLICY_DELETE, ...) */
	const char *policy_reason;
	bool module_has_dir;
	bool file_in_tree;
	const char *asker;
	const char *installer;         /* the ledger's latest install of file, or NULL */
	time_t installed_when;
	time_t now;
	time_t clock_seen;             /* the latest time the daemon has seen before now */
	unsigned delete_window;        /* seconds; 0: deleting is off */
	bool release_team;
};

/* Run the rules of one stage; true when none refused. */
bool delete_rules_check(enum delete_stage stage, const struct delete_facts *f,
			struct decision *d);

#endif
