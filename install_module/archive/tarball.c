/*
 * One streaming pass over an uploaded release tarball (see tarball.h).
 *
 * Design note. The input is read exactly once. Three layers share one
 * struct scan:
 *   upload   read(2) in CHUNK-sized pieces of the daemon's staging copy
 *            (the daemon hashed it; the checker only reads it);
 *   stream   a libarchive reader with the "raw" format and the built-in
 *            decompressors only (never an external program), fed by the
 *            upload layer; it yields the decompressed tar stream and tells
 *            which compression the file really uses;
 *   tar      a second libarchive reader, tar format, no filters, fed by
 *            the stream layer; it walks the members, which the member rules
 *            (member_rules.h) judge one by one against the earlier ones.
 * Splitting decompression from tar parsing is what lets us measure the
 * data after the end-of-archive, and lets a signature verifier be fed
 * either layer's bytes (expect->tee) as they pass, without a second read: the tar reader reports where it stopped,
 * the stream layer is then drained and counted, and so is the upload.
 *
 * MUST: stop at the first failure, with the first reason found (later
 * errors are libarchive's reaction to our callbacks failing); check every
 * cap while streaming, never only at the end.
 * MUST NOT: extract, follow or open any member, or write anything: this
 * runs inside postern-check's sandbox, which would kill it for trying.
 */
#define _GNU_SOURCE /* uselocale() */
#include "tarball.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "release_news.h"
#include "tarball_global.h"
#include "member_rules.h"
#include "tarball_names.h"

#define CHUNK (256 * 1024)

static const char damaged_stream[] =
	"the compressed data is damaged, cut short or followed by other data";
#define TOP_MAX (NAME_MODULE_MAX + RELEASE_VERSION_MAX + 2)

struct scan {
	const struct tarball_expect *expect;
	struct tarball_result *out;
	struct pst_err *e;
	int rc;                          /* the first failure; 0 while all is well */
	struct timespec deadline;
	char top[TOP_MAX];
	enum tarball_tee tee;            /* which layer is copied to tee_fds */
	int tee_fds[TARBALL_TEES];       /* -1 once its reader stopped reading, or for none */
	/* upload layer */
	int upload_fd;
	unsigned char *chunk;
	/* stream and tar layers */
	struct archive *stream;
	struct archive *tar;
	struct tarball_names *names;     /* the folded namespace (tarball_names.h) */
	struct tar_global_scan global;   /* what GNU tar would take for pax global headers */
	locale_t utf8, saved_locale;
};

static int fail(struct scan *s, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record the first failure only: later ones are consequences of it. */
static int fail(struct scan *s, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (s->rc == 0) {
		s->rc = -errnum;
		if (s->e != NULL) {
			va_start(ap, fmt);
			vsnprintf(s->e->msg, sizeof(s->e->msg), fmt, ap);
			va_end(ap);
		}
	}
	return s->rc;
}

/*
 * The checker runs under RLIMIT_AS (limits.check_memory): a stream whose
 * header asks for more (an xz dictionary of 1.5 GiB, a zstd window of 2 GiB)
 * makes the decoder's allocation fail, which libarchive reports as ENOMEM.
 * That is the upload's fault, so it is a refusal that says what to do.
 */
static int memory_failed(struct scan *s)
{
	const struct upload_limits *lim = s->expect->limits;

	if (lim->check_memory == 0)
		return fail(s, ENOMEM, "out of memory while reading the archive");
	return fail(s, EFBIG, "decompressing the file needs more memory than the limit of %llu "
		    "MiB (limits.check_memory): compress it with settings that need less to "
		    "decompress (xz -9 needs 65 MiB, zstd -19 9 MiB; a larger xz --lzma2=dict= or "
		    "zstd --long needs more)", (unsigned long long)(lim->check_memory >> 20));
}

/* A failure reported by libarchive, unless one of our callbacks caused it. */
static int archive_failed(struct scan *s, struct archive *a, const char *what)
{
	if (s->rc != 0)
		return s->rc;
	if (archive_errno(a) == ENOMEM)
		return memory_failed(s);
	return fail(s, EBADMSG, "%s: %s", what,
		    archive_error_string(a) != NULL ? archive_error_string(a) : "unknown error");
}

static int deadline_check(struct scan *s)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return fail(s, EIO, "internal error: no monotonic clock");
	if (now.tv_sec > s->deadline.tv_sec ||
	    (now.tv_sec == s->deadline.tv_sec && now.tv_nsec >= s->deadline.tv_nsec))
		return fail(s, ETIMEDOUT, "checking the tarball took longer than the limit of %u "
			    "seconds", s->expect->limits->time_limit);
	return 0;
}

/* Copy to one tee; a reader that went away (EPIPE, SIGPIPE ignored) is fed no more. */
static void tee_write_one(int *fd, const unsigned char *p, size_t len)
{
	ssize_t n;

	while (*fd >= 0 && len > 0) {
		n = write(*fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*fd = -1;
			return;
		}
		p += n;
		len -= (size_t)n;
	}
}

static void tee_write(struct scan *s, enum tarball_tee layer, const void *buf, size_t len)
{
	int i;

	if (s->tee != layer)
		return;
	for (i = 0; i < TARBALL_TEES; i++)
		tee_write_one(&s->tee_fds[i], buf, len);
}

/* Read the next piece of the upload; 0 at its end. */
static ssize_t upload_chunk(struct scan *s)
{
	const struct upload_limits *lim = s->expect->limits;
	ssize_t n;
	int rc;

	if (s->rc != 0 || deadline_check(s) < 0)
		return s->rc;
	do
		n = read(s->upload_fd, s->chunk, CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = errno;
		return fail(s, rc, "reading the upload failed: %s", strerror(rc));
	}
	s->out->compressed_size += (uint64_t)n;
	tee_write(s, TARBALL_TEE_UPLOAD, s->chunk, (size_t)n);
	if (s->out->compressed_size > lim->max_compressed)
		return fail(s, EFBIG, "the file is larger than the limit of %llu bytes",
			    (unsigned long long)lim->max_compressed);
	return n;
}

static la_ssize_t upload_read(struct archive *a, void *data, const void **buf)
{
	struct scan *s = data;
	ssize_t n = upload_chunk(s);

	*buf = s->chunk;
	if (n < 0) {
		archive_set_error(a, -(int)n, "%s", "reading the upload stopped");
		return -1;
	}
	return n;
}

static int uncompressed_caps_check(struct scan *s)
{
	const struct upload_limits *lim = s->expect->limits;
	uint64_t u = s->out->uncompressed_size, c = s->out->compressed_size;

	if (u > lim->max_uncompressed)
		return fail(s, EFBIG, "the tar inside is larger than the limit of %llu bytes",
			    (unsigned long long)lim->max_uncompressed);
	if (u > TARBALL_RATIO_FLOOR && u / lim->max_ratio > c)
		return fail(s, EFBIG, "the tar inside is more than %u times larger than the "
			    "compressed file (the limit)", lim->max_ratio);
	return 0;
}

/* The next piece of the decompressed stream; 0 at its end. */
static ssize_t stream_block(struct scan *s, const void **buf)
{
	la_int64_t offset;
	size_t size = 0;
	struct pst_err why;
	int r;

	do
		r = archive_read_data_block(s->stream, buf, &size, &offset);
	while (r == ARCHIVE_OK && size == 0);
	if (r == ARCHIVE_EOF)
		return 0;
	if (r != ARCHIVE_OK)
		return archive_failed(s, s->stream, damaged_stream);
	s->out->uncompressed_size += size;
	tee_write(s, TARBALL_TEE_TAR, *buf, size);
	if (uncompressed_caps_check(s) < 0 || deadline_check(s) < 0)
		return s->rc;
	if (tar_global_feed(&s->global, *buf, size, &why) < 0)
		return fail(s, EBADMSG, "%s", why.msg);
	return (ssize_t)size;
}

static la_ssize_t stream_read(struct archive *a, void *data, const void **buf)
{
	struct scan *s = data;
	ssize_t n = stream_block(s, buf);

	if (n < 0) {
		archive_set_error(a, -(int)n, "%s", "decompression stopped");
		return -1;
	}
	return n;
}

/* The libarchive filter code each file name suffix promises. */
static int expected_filter(enum release_compression c)
{
	switch (c) {
	case RELEASE_XZ:
		return ARCHIVE_FILTER_XZ;
	case RELEASE_GZ:
		return ARCHIVE_FILTER_GZIP;
	case RELEASE_BZ2:
		return ARCHIVE_FILTER_BZIP2;
	case RELEASE_ZST:
		return ARCHIVE_FILTER_ZSTD;
	}
	return ARCHIVE_FILTER_NONE;
}

static int compression_check(struct scan *s)
{
	enum release_compression c = s->expect->compression;
	const char *suffix = release_compression_suffix(c), *name = release_compression_name(c);
	int filters = archive_filter_count(s->stream);

	if (filters <= 1)
		return fail(s, EBADMSG, "the file is not compressed, but its name ends in .%s "
			    "(compress the tar with %s)", suffix, name);
	if (filters > 2)
		return fail(s, EBADMSG, "the file is compressed twice (%s inside %s); compress "
			    "the tar once, with %s", archive_filter_name(s->stream, 0),
			    archive_filter_name(s->stream, 1), name);
	if (archive_filter_code(s->stream, 0) != expected_filter(c))
		return fail(s, EBADMSG, "the file is compressed with %s, but its name ends in .%s "
			    "(rename it, or compress the tar with %s)",
			    archive_filter_name(s->stream, 0), suffix, name);
	return 0;
}

/* Only the decompressors built into libarchive: the *_program fallbacks would exec. */
static int stream_open(struct scan *s)
{
	int (*const filters[])(struct archive *) = {
		archive_read_support_filter_gzip, archive_read_support_filter_bzip2,
		archive_read_support_filter_xz, archive_read_support_filter_lzma,
		archive_read_support_filter_lzip, archive_read_support_filter_zstd,
		archive_read_support_filter_compress,
	};
	struct archive_entry *entry;
	size_t i;

	s->stream = archive_read_new();
	if (s->stream == NULL)
		return fail(s, ENOMEM, "out of memory");
	for (i = 0; i < sizeof(filters) / sizeof(filters[0]); i++)
		if (filters[i](s->stream) != ARCHIVE_OK)
			return fail(s, ENOTSUP, "internal error: libarchive lacks a built-in "
				    "decompressor: %s", archive_error_string(s->stream));
	if (archive_read_support_format_raw(s->stream) != ARCHIVE_OK ||
	    archive_read_support_format_empty(s->stream) != ARCHIVE_OK)
		return fail(s, ENOTSUP, "internal error: libarchive lacks the raw format");
	if (archive_read_open(s->stream, s, NULL, upload_read, NULL) != ARCHIVE_OK)
		return archive_failed(s, s->stream, damaged_stream);
	if (compression_check(s) < 0)
		return s->rc;
	switch (archive_read_next_header(s->stream, &entry)) {
	case ARCHIVE_OK:
		return 0;
	case ARCHIVE_EOF:
		return fail(s, EBADMSG, "the file is empty");
	default:
		return archive_failed(s, s->stream, damaged_stream);
	}
}

static int tar_open(struct scan *s)
{
	s->tar = archive_read_new();
	if (s->tar == NULL)
		return fail(s, ENOMEM, "out of memory");
	if (archive_read_support_format_tar(s->tar) != ARCHIVE_OK)
		return fail(s, ENOTSUP, "internal error: libarchive lacks the tar format");
	if (archive_read_open(s->tar, s, NULL, stream_read, NULL) != ARCHIVE_OK)
		return archive_failed(s, s->tar, "the file is not a readable tar archive");
	return 0;
}

static enum tarball_member_kind member_kind(struct archive_entry *entry)
{
	if (archive_entry_hardlink(entry) != NULL)
		return TARBALL_MEMBER_HARDLINK;
	switch (archive_entry_filetype(entry)) {
	case AE_IFREG:
		return TARBALL_MEMBER_FILE;
	case AE_IFDIR:
		return TARBALL_MEMBER_DIR;
	case AE_IFLNK:
		return TARBALL_MEMBER_SYMLINK;
	case AE_IFCHR:
		return TARBALL_MEMBER_CHARDEV;
	case AE_IFBLK:
		return TARBALL_MEMBER_BLOCKDEV;
	case AE_IFIFO:
		return TARBALL_MEMBER_FIFO;
	case AE_IFSOCK:
		return TARBALL_MEMBER_SOCKET;
	default:
		return TARBALL_MEMBER_UNKNOWN;
	}
}

static int news_read(struct scan *s)
{
	char buf[RELEASE_NEWS_MAX];
	size_t have = 0;
	la_ssize_t n;

	while (have < sizeof(buf)) {
		n = archive_read_data(s->tar, buf + have, sizeof(buf) - have);
		if (n < 0)
			return archive_failed(s, s->tar, "the tar archive is damaged");
		if (n == 0)
			break;
		have += (size_t)n;
	}
	release_news_excerpt(buf, have, s->out->news_head);
	s->out->has_news = true;
	return 0;
}

/* libarchive leaves a name it could not convert to the locale as UTF-8 only. */
static const char *entry_name(struct archive_entry *entry)
{
	const char *name = archive_entry_pathname(entry);

	return name != NULL ? name : archive_entry_pathname_utf8(entry);
}

/* The header rules, then the earlier members' rules; a refusal fails the scan. */
static int member_allowed(struct scan *s, struct member_facts *f)
{
	struct decision d;
	int rc;

	if (!member_rules_check(MEMBER_STAGE_HEADER, f, &d))
		return fail(s, EBADMSG, "%s", d.reason);
	rc = tarball_names_look(s->names, f->name, f->kind, f->linkname, &f->seen);
	if (rc == -ENOMEM)
		return fail(s, ENOMEM, "out of memory");
	if (rc < 0)
		return fail(s, EBADMSG, "a member name cannot be compared with the others "
			    "(it is not UTF-8)");
	if (!member_rules_check(MEMBER_STAGE_EARLIER, f, &d))
		return fail(s, EBADMSG, "%s", d.reason);
	if (tarball_names_remember(s->names, f->name, f->kind) < 0)
		return fail(s, ENOMEM, "out of memory");
	return 0;
}

static int member_scan(struct scan *s, struct archive_entry *entry)
{
	struct member_facts f = { .name = entry_name(entry), .kind = member_kind(entry),
				  .perm = (unsigned)archive_entry_perm(entry), .top = s->top };
	char news[TOP_MAX + 8];

	if (f.kind == TARBALL_MEMBER_HARDLINK)
		f.linkname = archive_entry_hardlink(entry);
	else if (f.kind == TARBALL_MEMBER_SYMLINK)
		f.linkname = archive_entry_symlink(entry);
	if (member_allowed(s, &f) < 0)
		return s->rc;
	snprintf(news, sizeof(news), "%s/NEWS", s->top);
	if (f.kind == TARBALL_MEMBER_FILE && strcmp(f.name, news) == 0)
		return news_read(s);
	return 0;
}

static int members_scan(struct scan *s)
{
	struct archive_entry *entry;
	int r;

	for (;;) {
		r = archive_read_next_header(s->tar, &entry);
		if (r == ARCHIVE_EOF)
			break;
		if (r == ARCHIVE_WARN)
			return archive_failed(s, s->tar, "a tar header cannot be used");
		if (r != ARCHIVE_OK)
			return archive_failed(s, s->tar, "the tar archive is damaged");
		if (++s->out->members > s->expect->limits->max_members)
			return fail(s, EFBIG, "the archive has more than %llu members (the limit)",
				    (unsigned long long)s->expect->limits->max_members);
		if (member_scan(s, entry) < 0 || deadline_check(s) < 0)
			return s->rc;
	}
	if (s->out->members == 0)
		return fail(s, EBADMSG, "the tar archive is empty");
	return 0;
}

/*
 * Everything after the tar's end-of-archive marker: first the rest of the
 * decompressed stream (tar's record padding, or data hidden there), then
 * the rest of the upload after the compressed stream ended.
 */
static int trailing_scan(struct scan *s)
{
	uint64_t tar_end = (uint64_t)archive_filter_bytes(s->tar, 0);
	uint64_t stream_end, trailing;
	const void *buf;
	ssize_t n;

	while ((n = stream_block(s, &buf)) > 0)
		continue;
	if (n < 0)
		return s->rc;
	stream_end = (uint64_t)archive_filter_bytes(s->stream, -1);
	while ((n = upload_chunk(s)) > 0)
		continue;
	if (n < 0)
		return s->rc;
	trailing = (s->out->uncompressed_size - tar_end) + (s->out->compressed_size - stream_end);
	if (trailing > TARBALL_TRAILING_MAX)
		return fail(s, EBADMSG, "the file has %llu bytes after the end of the tar archive "
			    "(at most %d are allowed; make the tarball with tar and one compressor "
			    "only)", (unsigned long long)trailing, TARBALL_TRAILING_MAX);
	return 0;
}

static int scan_setup(struct scan *s, const struct tarball_expect *expect)
{
	const struct upload_limits *lim = expect->limits;
	int n;

	if (!upload_limits_caps_set(lim))
		return fail(s, EINVAL, "internal error: tarball limits are not set");
	n = snprintf(s->top, sizeof(s->top), "%s-%s", expect->module, expect->version);
	if (n < 0 || (size_t)n >= sizeof(s->top))
		return fail(s, EINVAL, "internal error: module and version too long");
	if (clock_gettime(CLOCK_MONOTONIC, &s->deadline) != 0)
		return fail(s, EIO, "internal error: no monotonic clock");
	s->deadline.tv_sec += (time_t)lim->time_limit;
	/*
	 * libarchive converts pax (UTF-8) names to the locale's charset and
	 * fails on them in the daemon's C locale; in C.UTF-8 they pass through
	 * unchanged, and the member rule checks they are valid UTF-8.
	 */
	s->utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (s->utf8 == (locale_t)0)
		return fail(s, errno != 0 ? errno : ENOENT, "internal error: no C.UTF-8 locale");
	s->saved_locale = uselocale(s->utf8);
	s->chunk = malloc(CHUNK);
	s->names = tarball_names_new();
	if (s->chunk == NULL || s->names == NULL)
		return fail(s, ENOMEM, "out of memory");
	return 0;
}

static void scan_free(struct scan *s)
{
	if (s->tar != NULL)
		archive_read_free(s->tar);
	if (s->stream != NULL)
		archive_read_free(s->stream);
	tarball_names_free(s->names);
	if (s->utf8 != (locale_t)0) {
		uselocale(s->saved_locale);
		freelocale(s->utf8);
	}
	free(s->chunk);
}

int tarball_check(int upload_fd, const struct tarball_expect *expect, struct tarball_result *out,
		  struct pst_err *e)
{
	return tarball_check_tee(upload_fd, expect, TARBALL_TEE_NONE, (const int[]){ -1, -1 }, out, e);
}

int tarball_check_tee(int upload_fd, const struct tarball_expect *expect, enum tarball_tee tee,
		      const int tee_fds[TARBALL_TEES], struct tarball_result *out,
		      struct pst_err *e)
{
	struct scan s = { .expect = expect, .out = out, .e = e, .upload_fd = upload_fd,
			  .tee = tee, .tee_fds = { tee_fds[0], tee_fds[1] } };

	memset(out, 0, sizeof(*out));
	if (scan_setup(&s, expect) == 0 && stream_open(&s) == 0 && tar_open(&s) == 0 &&
	    members_scan(&s) == 0 && trailing_scan(&s) == 0)
		uncompressed_caps_check(&s);
	scan_free(&s);
	return s.rc;
}
