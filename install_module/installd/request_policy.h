/* The policy in force for one request: the one on disk now (request_policy.c). */
#ifndef POSTERN_REQUEST_POLICY_H
#define POSTERN_REQUEST_POLICY_H

#include <stdbool.h>

#include "installd.h"
#include "policy.h"

/*
 * Load started->config afresh and fill *now: a copy of *started (its
 * directory fds) deciding with the new policy, which the caller frees with
 * policy_free(*loaded) once the request is done. On failure the client is
 * refused with the reason, policy_error is logged, and false is returned.
 */
bool request_policy_load(const struct installd *started, const struct installd_peer *peer,
			 struct installd *now, struct policy **loaded);

#endif
