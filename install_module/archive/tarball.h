/*
 * Checking an uploaded release tarball in one streaming pass: the archive
 * rules. Only postern-check links this (and libarchive); it runs inside the
 * checker's sandbox, on a read-only fd of the daemon's staging copy.
 *
 * tarball_check() reads the fd once, in chunks, and hands them to
 * libarchive, which decompresses them and walks the tar members. Nothing is
 * extracted; member data is only decompressed and counted (except the
 * first lines of a top-level NEWS, kept for the release mail). It writes
 * nothing: hashing and copying are the daemon's (daemon/upload_stage.h).
 *
 * Refusals (the upload's fault) return -EBADMSG, and for the caps -EFBIG
 * (sizes, members, ratio, the checker's memory limit) or -ETIMEDOUT
 * (time_limit); e says exactly what was wrong and what to do. Any other
 * negative errno is an internal error (read failure, out of memory).
 */
#ifndef POSTERN_TARBALL_H
#define POSTERN_TARBALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "upload_limits.h"
#include "release_name.h"
#include "release_news.h"

/* Decompressed bytes allowed after the tar end-of-archive marker (tar's
 * record padding is up to 10240 bytes), plus compressed bytes after the
 * end of the compressed stream. */
#define TARBALL_TRAILING_MAX (10 * 1024)
/* The ratio cap only applies once this much has been decompressed, so a
 * tiny tarball whose padding compresses to nothing is not refused. */
#define TARBALL_RATIO_FLOOR (1024 * 1024)
#define TARBALL_NEWS_LINES RELEASE_NEWS_LINES
#define TARBALL_NEWS_MAX RELEASE_NEWS_MAX

/* Which bytes tarball_check() also copies to the tee fds as it reads them. */
enum tarball_tee {
	TARBALL_TEE_NONE = 0,
	TARBALL_TEE_UPLOAD,     /* the upload as read: the compressed file */
	TARBALL_TEE_TAR,        /* the decompressed tar stream, trailing padding included */
};

struct tarball_expect {
	const char *module;            /* from release_name_parse() */
	const char *version;
	enum release_compression compression;
	/* every field but check_memory must be non-zero; check_memory is the
	 * RLIMIT_AS the caller set (0: none), named when memory runs out */
	const struct upload_limits *limits;
};

struct tarball_result {
	uint64_t compressed_size;      /* bytes read from upload_fd */
	uint64_t uncompressed_size;    /* bytes of the decompressed tar stream */
	uint64_t members;              /* tar entries, the top directory included */
	bool has_news;                 /* "<module>-<version>/NEWS" is a regular file */
	/* Its first TARBALL_NEWS_LINES lines, at most TARBALL_NEWS_MAX bytes, NUL-terminated;
	 * a NUL byte or invalid UTF-8 ends the excerpt early, control characters other
	 * than newline and tab become '?'. Empty when !has_news. */
	char news_head[TARBALL_NEWS_MAX + 1];
};

/*
 * The whole check. Returns 0 with *out filled, or a negative errno as
 * described above with e filled (and *out undefined).
 */
int tarball_check(int upload_fd, const struct tarball_expect *expect, struct tarball_result *out,
		  struct pst_err *e);

/*
 * The same check, and every byte of the tee layer, in order, written to
 * each of the TARBALL_TEES fds in tee_fds (pipes to the signature
 * verifiers; -1 for none) as it passes, until a write to that fd fails:
 * its reader stopped, and its own answer will say why; the check goes on
 * either way. The caller ignores SIGPIPE.
 */
#define TARBALL_TEES 2
int tarball_check_tee(int upload_fd, const struct tarball_expect *expect, enum tarball_tee tee,
		      const int tee_fds[TARBALL_TEES], struct tarball_result *out,
		      struct pst_err *e);

enum tarball_member_kind {
	TARBALL_MEMBER_FILE,
	TARBALL_MEMBER_DIR,
	TARBALL_MEMBER_SYMLINK,        /* linkname: the symlink's target */
	TARBALL_MEMBER_HARDLINK,       /* linkname: the archive path it links to */
	TARBALL_MEMBER_CHARDEV,
	TARBALL_MEMBER_BLOCKDEV,
	TARBALL_MEMBER_FIFO,
	TARBALL_MEMBER_SOCKET,
	TARBALL_MEMBER_UNKNOWN,
};

/* How many bytes of a name a refusal quotes, and the buffer tarball_shown() fills. */
#define TARBALL_SHOWN_MAX 160
#define TARBALL_SHOWN_SIZE (TARBALL_SHOWN_MAX + 4)

/*
 * A member name (or a part of one, len bytes) as a refusal may quote it:
 * printable (common/text_show.h, unprintable bytes as '?') and at most
 * TARBALL_SHOWN_MAX bytes, "..." when cut. Returns buf. (member_rules.c)
 */
const char *tarball_shown(const char *s, size_t len, char buf[TARBALL_SHOWN_SIZE]);

/* Which member may be in a release is the member rules' (member_rules.h). */

#endif
