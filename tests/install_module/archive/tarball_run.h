/*
 * What the tarball tests share: one check of an upload fd as demo-1.0.tar.xz
 * under the default caps, and its outcome.
 */
#ifndef POSTERN_TEST_TARBALL_RUN_H
#define POSTERN_TEST_TARBALL_RUN_H

#include <stddef.h>

#include "tarball.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define TOP { "demo-1.0/", 'd', NULL, NULL, 0 }
#define FILE_(name) { name, 'f', NULL, "content\n", 0 }
#define SMALL_MEMBERS { TOP, FILE_("demo-1.0/README") }

struct run {
	int rc;
	struct tarball_result res;
	struct pst_err e;
	unsigned char *upload;
	size_t upload_len;
};

/* The default caps: 2 GiB, 8 GiB, 200,000 members, 100:1, 600 s. */
extern const struct upload_limits run_defaults;

/* Check upload (consumed) as demo-1.0.tar.xz; only rc, res and e are set. */
void check_fd(int upload, struct run *r);

#endif
