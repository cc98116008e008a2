/*
 * A CI upload's body to anonymous files (multipart_store.h). The post
 * processor calls on_part for each run of bytes of a part; a run at offset
 * 0 starts a new part. The first error sticks: the iterator answers MHD_NO
 * from then on and every later call returns it, so nothing more is written.
 */
#define _GNU_SOURCE
#include "multipart_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "text.h"

/* The post processor's buffer holds a part's headers, not its data. */
#define MULTIPART_PP_BUFFER 4096

struct multipart_store {
	struct MHD_PostProcessor *pp;
	int dirfd;
	uint64_t max_body, max_file, body;
	struct multipart_file files[MULTIPART_FILES_MAX];
	size_t nfiles;
	struct multipart_file *cur;   /* the part being written, or NULL */
	EVP_MD_CTX *sha;              /* cur's SHA-256 */
	int err;                      /* the first error, or 0 */
	struct pst_err why;
};

static int store_fail(struct multipart_store *s, int err, const char *what)
{
	if (s->err == 0)
		s->err = pst_fail(&s->why, -err, "%s", what);
	return s->err;
}

static int store_error(const struct multipart_store *s, struct pst_err *e)
{
	if (e != NULL)
		*e = s->why;
	return s->err;
}

/* One plain component as a release or signature name can be: no path, no
 * hidden file, nothing a log or a terminal would misread. */
static bool file_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= NAME_MAX && name[0] != '.' && strchr(name, '/') == NULL &&
	       str_is_printable(name);
}

/* Content-Transfer-Encoding is deprecated for form data (RFC 7578 4.7);
 * the identity encodings are harmless, anything else is not decoded here. */
static bool encoding_ok(const char *enc)
{
	return enc == NULL || strcasecmp(enc, "binary") == 0 || strcasecmp(enc, "8bit") == 0 ||
	       strcasecmp(enc, "7bit") == 0;
}

static int part_close(struct multipart_store *s)
{
	unsigned int len = 0;

	if (s->cur == NULL)
		return 0;
	if (EVP_DigestFinal_ex(s->sha, s->cur->sha256, &len) != 1 || len != sizeof(s->cur->sha256))
		return store_fail(s, -EIO, "the upload's SHA-256 could not be computed");
	s->cur = NULL;
	return 0;
}

static int part_open(struct multipart_store *s, const char *filename)
{
	struct multipart_file *f;
	size_t i;

	if (part_close(s) < 0)
		return s->err;
	if (filename == NULL || !file_name_ok(filename))
		return store_fail(s, -EINVAL, "a file's name must be one plain file name: printable, "
				  "at most 255 bytes, without '/' and not starting with '.'");
	for (i = 0; i < s->nfiles; i++)
		if (strcmp(s->files[i].name, filename) == 0)
			return store_fail(s, -EBADMSG, "two parts carry the same file name "
					  "(send each file once)");
	if (s->nfiles == MULTIPART_FILES_MAX)
		return store_fail(s, -EFBIG, "more than 16 files in one request (send fewer)");
	f = &s->files[s->nfiles];
	f->fd = openat(s->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (f->fd < 0)
		return store_fail(s, -EIO, "the upload could not be staged (no anonymous file)");
	str_copy(f->name, sizeof(f->name), filename);
	f->size = 0;
	s->nfiles++;
	if (EVP_DigestInit_ex(s->sha, EVP_sha256(), NULL) != 1)
		return store_fail(s, -EIO, "the upload's SHA-256 could not be started");
	s->cur = f;
	return 0;
}

static int part_write(struct multipart_store *s, const char *data, size_t size)
{
	size_t done = 0;
	ssize_t n;

	if (size > s->max_file - s->cur->size)
		return store_fail(s, -EFBIG, "a file is larger than allowed (limits.max_compressed)");
	if (EVP_DigestUpdate(s->sha, data, size) != 1)
		return store_fail(s, -EIO, "the upload's SHA-256 could not be computed");
	while (done < size) {
		n = write(s->cur->fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return store_fail(s, errno == ENOSPC ? -ENOSPC : -EIO,
					  "the upload could not be staged (write failed)");
		done += (size_t)n;
	}
	s->cur->size += size;
	return 0;
}

/*
 * A run of bytes of one part. A run at offset 0 starts a part, unless it
 * continues an empty first run of the same part (the post processor may
 * announce a part before its data).
 */
static enum MHD_Result on_part(void *cls, enum MHD_ValueKind kind, const char *key,
			       const char *filename, const char *content_type,
			       const char *transfer_encoding, const char *data, uint64_t off,
			       size_t size)
{
	struct multipart_store *s = cls;
	bool same_empty;

	(void)kind;
	(void)content_type;
	if (s->err != 0)
		return MHD_NO;
	if (key == NULL || strcmp(key, MULTIPART_PART_NAME) != 0) {
		store_fail(s, -EBADMSG, "only parts named \"file\" are accepted (curl -F file=@NAME)");
		return MHD_NO;
	}
	if (!encoding_ok(transfer_encoding)) {
		store_fail(s, -EBADMSG, "a part has a Content-Transfer-Encoding (send the bytes as "
			   "they are)");
		return MHD_NO;
	}
	same_empty = s->cur != NULL && s->cur->size == 0 && filename != NULL &&
		     strcmp(filename, s->cur->name) == 0;
	if (off == 0 && !same_empty && part_open(s, filename) < 0)
		return MHD_NO;
	if (s->cur == NULL || off != s->cur->size) {
		store_fail(s, -EBADMSG, "the body's parts are out of order");
		return MHD_NO;
	}
	return size == 0 || part_write(s, data, size) == 0 ? MHD_YES : MHD_NO;
}

/* Content-Type multipart/form-data (with a boundary: the post processor
 * refuses one without), Content-Length within the cap when given. */
static int request_check(struct MHD_Connection *c, uint64_t max_body, struct pst_err *e)
{
	static const char form[] = "multipart/form-data";
	const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_TYPE);
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);
	unsigned long long len;
	char *end;

	if (ct == NULL || strncasecmp(ct, form, sizeof(form) - 1) != 0 ||
	    (ct[sizeof(form) - 1] != ';' && ct[sizeof(form) - 1] != ' '))
		return pst_fail(e, EBADMSG, "the body must be multipart/form-data (curl -F file=@NAME)");
	if (cl == NULL)
		return 0;
	errno = 0;
	len = strtoull(cl, &end, 10);
	if (errno != 0 || end == cl || *end != '\0')
		return pst_fail(e, EBADMSG, "the Content-Length is not a number");
	if (len > max_body)
		return pst_fail(e, EFBIG, "the body is larger than the %llu bytes allowed "
				"(limits.max_compressed)", (unsigned long long)max_body);
	return 0;
}

int multipart_store_open(struct MHD_Connection *c, int dirfd, uint64_t max_body,
			 uint64_t max_file, struct multipart_store **out, struct pst_err *e)
{
	struct multipart_store *s;
	int rc;

	*out = NULL;
	rc = request_check(c, max_body, e);
	if (rc < 0)
		return rc;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	s->dirfd = dirfd;
	s->max_body = max_body;
	s->max_file = max_file;
	s->sha = EVP_MD_CTX_new();
	if (s->sha == NULL) {
		free(s);
		return pst_fail(e, ENOMEM, "out of memory");
	}
	s->pp = MHD_create_post_processor(c, MULTIPART_PP_BUFFER, on_part, s);
	if (s->pp == NULL) {
		multipart_store_free(s);
		return pst_fail(e, EBADMSG, "the multipart/form-data body has no usable boundary");
	}
	*out = s;
	return 0;
}

int multipart_store_feed(struct multipart_store *s, const char *data, size_t size,
			 struct pst_err *e)
{
	if (s->err != 0)
		return store_error(s, e);
	if (size > s->max_body - s->body) {
		store_fail(s, -EFBIG, "the body is larger than allowed (limits.max_compressed)");
		return store_error(s, e);
	}
	s->body += size;
	if (MHD_post_process(s->pp, data, size) != MHD_YES)
		store_fail(s, -EBADMSG, "the body is not valid multipart/form-data");
	return s->err != 0 ? store_error(s, e) : 0;
}

int multipart_store_finish(struct multipart_store *s, struct pst_err *e)
{
	struct MHD_PostProcessor *pp = s->pp;
	size_t i;

	if (s->err != 0)
		return store_error(s, e);
	s->pp = NULL;
	if (MHD_destroy_post_processor(pp) != MHD_YES)
		store_fail(s, -EBADMSG, "the multipart/form-data body ends before its last boundary");
	if (part_close(s) < 0 || s->err != 0)
		return store_error(s, e);
	if (s->nfiles == 0) {
		store_fail(s, -EBADMSG, "the body holds no part named \"file\" (curl -F file=@NAME)");
		return store_error(s, e);
	}
	for (i = 0; i < s->nfiles; i++)
		if (lseek(s->files[i].fd, 0, SEEK_SET) != 0) {
			store_fail(s, -EIO, "the staged upload could not be rewound");
			return store_error(s, e);
		}
	return 0;
}

size_t multipart_store_count(const struct multipart_store *s)
{
	return s->err == 0 && s->pp == NULL ? s->nfiles : 0;
}

const struct multipart_file *multipart_store_file(const struct multipart_store *s, size_t i)
{
	return i < multipart_store_count(s) ? &s->files[i] : NULL;
}

void multipart_store_free(struct multipart_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	if (s->pp != NULL)
		(void)MHD_destroy_post_processor(s->pp);
	for (i = 0; i < s->nfiles; i++)
		close(s->files[i].fd);
	EVP_MD_CTX_free(s->sha);
	free(s);
}

unsigned multipart_http_status(int err)
{
	switch (err) {
	case 0: return 200;
	case -EFBIG: return 413;
	case -EBADMSG: return 400;
	case -EINVAL: return 422;
	default: return 500;
	}
}
