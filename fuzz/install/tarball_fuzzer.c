/*
 * The whole one-pass check from any bytes. Input: one byte choosing the
 * compression the name promises, then the file. Whatever the outcome, the
 * staging copy must be byte-identical to the part of the input that was
 * read, a refusal must carry a reason, and an accepted file's hash must be
 * the SHA-256 of all of it.
 */
#define _GNU_SOURCE /* memfd_create() */
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tarball.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct policy_limits limits = {
	.max_compressed = 1 << 20,
	.max_uncompressed = 8 << 20,
	.max_members = 1000,
	.max_ratio = 100,
	.time_limit = 60,
};

static void check_hash(const uint8_t *data, size_t size, const char *hex)
{
	unsigned char md[32];
	char want[65];
	unsigned n = 0, i;

	if (EVP_Digest(data, size, md, &n, EVP_sha256(), NULL) != 1)
		abort();
	for (i = 0; i < n; i++)
		snprintf(want + 2 * i, 3, "%02x", md[i]);
	if (strcmp(want, hex) != 0)
		abort();
}

static void check_staging(int staging, const uint8_t *data, size_t size, bool whole)
{
	off_t len = lseek(staging, 0, SEEK_END);
	uint8_t *copy;

	if (len < 0 || (size_t)len > size || (whole && (size_t)len != size))
		abort();
	copy = malloc((size_t)len + 1);
	if (copy == NULL || pread(staging, copy, (size_t)len, 0) != len ||
	    memcmp(copy, data, (size_t)len) != 0)
		abort();
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tarball_expect x = { "demo", "1.0", RELEASE_XZ, &limits };
	struct tarball_result r;
	struct pst_err e;
	int upload, staging, rc;

	if (size < 1)
		return 0;
	x.compression = (enum release_compression)(data[0] % (RELEASE_ZST + 1));
	upload = memfd_create("upload", MFD_CLOEXEC);
	staging = memfd_create("staging", MFD_CLOEXEC);
	if (upload < 0 || staging < 0 || write(upload, data + 1, size - 1) != (ssize_t)(size - 1) ||
	    lseek(upload, 0, SEEK_SET) != 0)
		abort();
	e.msg[0] = '\0';
	rc = tarball_check_copy(upload, staging, &x, &r, &e);
	if (rc != 0 && e.msg[0] == '\0')
		abort();
	check_staging(staging, data + 1, size - 1, rc == 0);
	if (rc == 0)
		check_hash(data + 1, size - 1, r.sha256);
	close(upload);
	close(staging);
	return 0;
}
