/*
 * The whole one-pass check from any bytes. Input: one byte choosing the
 * compression the name promises, then the file. Whatever the outcome, a
 * refusal must carry a reason, and an accepted file must have been read
 * to its last byte.
 */
#define _GNU_SOURCE /* memfd_create() */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tarball.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct upload_limits limits = {
	.max_compressed = 1 << 20,
	.max_uncompressed = 8 << 20,
	.max_members = 1000,
	.max_ratio = 100,
	.time_limit = 60,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tarball_expect x = { "demo", "1.0", RELEASE_XZ, &limits };
	struct tarball_result r;
	struct pst_err e;
	int upload, rc;

	if (size < 1)
		return 0;
	x.compression = (enum release_compression)(data[0] % (RELEASE_ZST + 1));
	upload = memfd_create("upload", MFD_CLOEXEC);
	if (upload < 0 || write(upload, data + 1, size - 1) != (ssize_t)(size - 1) ||
	    lseek(upload, 0, SEEK_SET) != 0)
		abort();
	e.msg[0] = '\0';
	rc = tarball_check(upload, &x, &r, &e);
	if (rc != 0 && e.msg[0] == '\0')
		abort();
	if (rc == 0 && r.compressed_size != size - 1)
		abort();
	close(upload);
	return 0;
}
