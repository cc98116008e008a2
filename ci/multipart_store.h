/*
 * The body of a CI upload (multipart/form-data, RFC 7578) streamed to disk:
 * libmicrohttpd's post processor splits it, and every part named "file"
 * goes, as its bytes arrive, to an anonymous file (O_TMPFILE) in the
 * staging directory, its SHA-256 taken on the way. Nothing is held whole in
 * memory; nothing gets a name on disk, so a request that ends early or a
 * crash leaves nothing to clean up.
 *
 * MUST: cap the body's bytes (before reading, from Content-Length, and as
 * it arrives), each file's bytes, the number of files and the file name (one printable
 * component of at most NAME_MAX bytes, no leading '.'); refuse any other
 * part name, a part with a transfer encoding, two files of one name.
 * MUST NOT: parse multipart itself, or keep a file that failed half-way.
 *
 * Errors, each with a sentence in e: -EFBIG too large (HTTP 413), -EBADMSG
 * malformed (400), -EINVAL a bad file name (422), other -errno internal
 * (500); multipart_http_status maps them.
 */
#ifndef POSTERN_CI_MULTIPART_STORE_H
#define POSTERN_CI_MULTIPART_STORE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "errmsg.h"

#define MULTIPART_FILES_MAX 16
#define MULTIPART_PART_NAME "file"

struct multipart_file {
	char name[NAME_MAX + 1];
	int fd;                       /* anonymous, read-write; at offset 0 after finish */
	uint64_t size;
	unsigned char sha256[32];
};

struct multipart_store;

/*
 * Start reading the body of the request on c into files in the directory
 * dirfd (kept open by the caller): at most max_body bytes of body in all,
 * at most max_file bytes in one file. Checks the request's Content-Type
 * and Content-Length first.
 */
int multipart_store_open(struct MHD_Connection *c, int dirfd, uint64_t max_body,
			 uint64_t max_file, struct multipart_store **out, struct pst_err *e);

/* The next size bytes of body. 0, or the first error again and again. */
int multipart_store_feed(struct multipart_store *s, const char *data, size_t size,
			 struct pst_err *e);

/* The body is complete: 0 when it was well formed and held at least one file. */
int multipart_store_finish(struct multipart_store *s, struct pst_err *e);

size_t multipart_store_count(const struct multipart_store *s);
const struct multipart_file *multipart_store_file(const struct multipart_store *s, size_t i);

/* Close every file (which frees its space) and the store; s may be NULL. */
void multipart_store_free(struct multipart_store *s);

/* The HTTP status of one of the errors above. */
unsigned multipart_http_status(int err);

#endif
