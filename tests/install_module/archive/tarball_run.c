#include "tarball_run.h"

#include <string.h>
#include <unistd.h>

#include "tarball_maker.h"

const struct upload_limits run_defaults = {
	.max_compressed = 2ULL << 30,
	.max_uncompressed = 8ULL << 30,
	.max_members = 200000,
	.max_ratio = 100,
	.time_limit = 600,
};

void check_fd(int upload, struct run *r)
{
	struct tarball_expect x = { "demo", "1.0", RELEASE_XZ, &run_defaults };
	memset(r, 0, sizeof(*r));
	r->rc = tarball_check(upload, &x, &r->res, &r->e);
	close(upload);
}
