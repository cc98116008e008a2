/*
 * The policy a request is decided against: postern.yaml and the generated
 * DOAP module file as they are on disk when the request arrives, loaded
 * afresh by the connection's own process (about 2 ms of CPU for a
 * 1,000-module policy, see bench/policy), so a maintainer removed by an
 * administrator or by the DOAP import is refused on the next request.
 *
 * MUST: refuse the request, with the loader's FILE:LINE:COL message and a
 * policy_error record, when the policy does not load (as postern-shell
 * does); refuse it when the policy now names another tree or state than
 * the directories this daemon opened at start.
 * MUST NOT: fall back to the policy loaded at start, or to any older one.
 */
#define _GNU_SOURCE
#include "request_policy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "wire_io.h"

static bool same_path(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* The directories were opened at start: a policy naming others needs a restart. */
static int check_paths(const struct installd *started, const struct policy_settings *now,
		       struct pst_err *e)
{
	if (!same_path(started->set->tree, now->tree))
		return pst_fail(e, EINVAL, "%s: paths.tree is now %s, but this daemon serves %s "
				"(restart postern-installd to move the tree)", started->config,
				now->tree ? now->tree : "unset", started->set->tree);
	if (!same_path(started->set->state, now->state))
		return pst_fail(e, EINVAL, "%s: paths.state is now %s, but this daemon uses %s "
				"(restart postern-installd to move the state)", started->config,
				now->state ? now->state : "unset", started->set->state);
	return 0;
}

bool request_policy_load(const struct installd *started, const struct installd_peer *peer,
			 struct installd *now, struct policy **loaded)
{
	struct pst_err e = { "" };
	int rc;

	*now = *started;
	*loaded = NULL;
	rc = policy_load(started->config, loaded, &e);
	if (rc == 0)
		rc = check_paths(started, policy_settings(*loaded), &e);
	if (rc == 0) {
		now->policy = *loaded;
		now->set = policy_settings(*loaded);
		return true;
	}
	policy_free(*loaded);
	*loaded = NULL;
	audit_emit(LOG_NOTICE, "policy_error", &peer->session, "file", started->config,
		   "error", e.msg, NULL);
	wire_send_msg(peer->sock, WIRE_MSG_REFUSED,
		      "the release policy cannot be loaded (%s); nothing is allowed until an administrator fixes it",
		      e.msg);
	return false;
}
