/*
 * The caps on one upload and its check: set by the policy (postern.yaml's
 * limits:), carried to the checker in its request, enforced by the archive
 * rules. A header of its own so that the archive rules and the wire need
 * no policy.
 */
#ifndef POSTERN_UPLOAD_LIMITS_H
#define POSTERN_UPLOAD_LIMITS_H

#include <stdint.h>

struct upload_limits {
	uint64_t max_compressed;     /* bytes, default 2 GiB */
	uint64_t max_uncompressed;   /* bytes, default 8 GiB */
	uint64_t max_members;        /* default 200000 */
	unsigned max_ratio;          /* uncompressed:compressed, default 100 */
	unsigned time_limit;         /* seconds per install, default 600 */
	uint64_t check_memory;       /* address space of the checker, bytes, default 512 MiB */
};

#endif
