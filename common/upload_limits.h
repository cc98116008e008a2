/*
 * The caps on one upload and its check: set by the policy (postern.yaml's
 * limits:), carried to the checker in its request, enforced by the archive
 * rules. A header of its own so that the archive rules and the wire need
 * no policy.
 */
#ifndef POSTERN_UPLOAD_LIMITS_H
#define POSTERN_UPLOAD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct upload_limits {
	uint64_t max_compressed;     /* bytes, default 2 GiB */
	uint64_t max_uncompressed;   /* bytes, default 8 GiB */
	uint64_t max_members;        /* default 200000 */
	unsigned max_ratio;          /* uncompressed:compressed, default 100 */
	unsigned time_limit;         /* seconds per install, default 600 */
	uint64_t check_memory;       /* address space of the checker, bytes, default 512 MiB */
	uint64_t incoming_total;     /* what one user's incoming may hold before an rsync
				      * upload starts, bytes, default 8 GiB (postern-shell) */
};

/*
 * Whether every cap the archive rules enforce is set (non-zero): the one
 * test of a limits struct, for the archive rules and the checker's request
 * parser alike. check_memory may be 0 (postern-client's local check runs
 * without a memory limit); the checker's request requires it too.
 */
static inline bool upload_limits_caps_set(const struct upload_limits *l)
{
	return l != NULL && l->max_compressed != 0 && l->max_uncompressed != 0 &&
	       l->max_members != 0 && l->max_ratio != 0 && l->time_limit != 0;
}

#endif
