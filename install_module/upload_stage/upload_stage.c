/*
 * Copying and hashing an upload into the staging file (see upload_stage.h).
 * MUST: hash exactly the bytes written. MUST NOT: write anything but the
 * staging fd, or decode a byte of what it copies.
 */
#define _GNU_SOURCE
#include "upload_stage.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hex.h"
#include "safefile.h"

#define CHUNK (256 * 1024)

static int copy_hashed(int upload_fd, int staging_fd, uint64_t max, EVP_MD_CTX *md,
		       unsigned char *chunk, struct upload_staged *out, struct pst_err *e)
{
	ssize_t n;
	int rc;

	for (;;) {
		do
			n = read(upload_fd, chunk, CHUNK);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return pst_fail(e, errno, "reading the upload failed: %s", strerror(errno));
		if (n == 0)
			return 0;
		out->size += (uint64_t)n;
		if (out->size > max)
			return pst_fail(e, EFBIG, "the file is larger than the limit of %llu bytes",
					(unsigned long long)max);
		if (EVP_DigestUpdate(md, chunk, (size_t)n) != 1)
			return pst_fail(e, EIO, "SHA-256 failed");
		rc = sf_write_full(staging_fd, chunk, (size_t)n);
		if (rc < 0)
			return pst_fail(e, -rc, "writing the staging copy failed: %s", strerror(-rc));
	}
}

int upload_stage(int upload_fd, int staging_fd, uint64_t max, struct upload_staged *out,
		 struct pst_err *e)
{
	unsigned char md_out[EVP_MAX_MD_SIZE];
	unsigned char *chunk = malloc(CHUNK);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (chunk == NULL || md == NULL)
		rc = pst_fail(e, ENOMEM, "out of memory");
	else if (EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1)
		rc = pst_fail(e, EIO, "SHA-256 is not available");
	else
		rc = copy_hashed(upload_fd, staging_fd, max, md, chunk, out, e);
	if (rc == 0 && (EVP_DigestFinal_ex(md, md_out, &len) != 1 || len != 32))
		rc = pst_fail(e, EIO, "SHA-256 failed");
	if (rc == 0)
		hex_lower(md_out, len, out->sha256);
	EVP_MD_CTX_free(md);
	free(chunk);
	return rc;
}

int upload_stage_reopen_readonly(int staging_fd, struct pst_err *e)
{
	char proc[64];
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", staging_fd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return pst_fail(e, errno, "cannot reopen the staging copy read-only: %s",
				strerror(errno));
	return fd;
}
