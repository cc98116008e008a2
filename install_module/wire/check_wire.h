/*
 * The protocol between postern-installd and postern-check: two fixed-size
 * records, each one SOCK_SEQPACKET message, so a short, long or second
 * message cannot be mistaken for a record.
 *
 *   request (daemon -> checker), with the read-only staging fd attached by
 *   SCM_RIGHTS (and, for a signed upload, the signature's and the keyring's):
 *   "PSTCHKQ2" | module[129] | version[65] | compression u32 |
 *   max_compressed u64 | max_uncompressed u64 | max_members u64 |
 *   max_ratio u32 | time_limit u32 | check_memory u64 | sig_kind u32 |
 *   sig_max_age u32
 *
 *   verdict (checker -> daemon): "PSTCHKV2" | outcome u32 | compressed u64 |
 *   uncompressed u64 | members u64 | has_news u32 | message[512] | news[4097] |
 *   signer[65]
 *
 * Integers are big-endian; strings are NUL-terminated and NUL-padded.
 * The daemon treats the checker as hostile: check_verdict_parse() MUST
 * refuse anything but exactly one well-formed record (the padding
 * included), a message with control characters or invalid UTF-8, and a
 * NEWS excerpt that cleaning would change, and a signer that is not empty or
 * exactly 40 or 64 upper-case hex digits (or is set on anything but a PASS).
 * Whether a PASS must carry a signer depends on the request: the daemon
 * checks that (check_spawn.c). A verdict names no path: where
 * to write is never the checker's to say.
 */
#ifndef POSTERN_CHECK_WIRE_H
#define POSTERN_CHECK_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "upload_limits.h"
#include "release_name.h"
#include "release_news.h"
#include "text.h"

#define CHECK_REQUEST_MAGIC "PSTCHKQ3"
#define CHECK_VERDICT_MAGIC "PSTCHKV2"
#define CHECK_MAGIC_LEN 8
#define CHECK_MESSAGE_MAX 512
/* An OpenPGP fingerprint in upper-case hex: 40 (v4) or 64 (v6) digits. */
#define CHECK_FINGERPRINT_MAX 64

#define CHECK_REQUEST_SIZE (CHECK_MAGIC_LEN + (NAME_MODULE_MAX + 1) + \
			    (RELEASE_VERSION_MAX + 1) + 4 + 8 + 8 + 8 + 4 + 4 + 8 + 4 + 4)
#define CHECK_VERDICT_SIZE (CHECK_MAGIC_LEN + 4 + 8 + 8 + 8 + 4 + CHECK_MESSAGE_MAX + \
			    (RELEASE_NEWS_MAX + 1) + (CHECK_FINGERPRINT_MAX + 1))

/* The largest signature file accepted (kup's cap); larger is refused unread. */
#define CHECK_SIGNATURE_MAX (64 * 1024)

/* What a detached OpenPGP signature covers, or that there is none. */
enum check_signature_kind {
	CHECK_SIG_NONE = 0,      /* unsigned upload */
	CHECK_SIG_FILE = 1,      /* FILE.asc / FILE.sig: the uploaded (compressed) bytes */
	CHECK_SIG_TAR = 2,       /* <module>-<version>.tar.sign: the uncompressed tar stream (kup) */
};

/*
 * With sig_kind != CHECK_SIG_NONE, the request carries three fds in this
 * order: the upload, the signature (at most CHECK_SIGNATURE_MAX bytes),
 * the uploader's keyring (opened and checked by the daemon); otherwise the
 * upload's alone.
 */
struct check_request {
	enum check_signature_kind sig_kind;
	/* Seconds: a signature made longer ago is refused (sqv --not-before); 0: no limit. */
	uint32_t sig_max_age;
	char module[NAME_MODULE_MAX + 1];
	char version[RELEASE_VERSION_MAX + 1];
	enum release_compression compression;
	struct upload_limits limits;
};

enum check_outcome {
	CHECK_PASS = 1,         /* every rule passed */
	CHECK_REFUSED = 2,      /* the upload's fault; message says what to do */
	CHECK_INTERNAL = 3,     /* the checker failed; message says how */
};

struct check_verdict {
	enum check_outcome outcome;
	uint64_t compressed;    /* bytes the checker read */
	uint64_t uncompressed;
	uint64_t members;
	bool has_news;
	char message[CHECK_MESSAGE_MAX];
	char news[RELEASE_NEWS_MAX + 1];
	/* CHECK_PASS of a signed request: the fingerprint of the key that made
	 * the good signature; "" otherwise. */
	char signer[CHECK_FINGERPRINT_MAX + 1];
};

/* Encode into exactly CHECK_REQUEST_SIZE / CHECK_VERDICT_SIZE bytes. False when a field does not fit. */
bool check_request_encode(const struct check_request *r, unsigned char *buf);
bool check_verdict_encode(const struct check_verdict *v, unsigned char *buf);

/* Decode exactly len bytes; 0, or -EBADMSG with e saying what was wrong. */
int check_request_parse(const unsigned char *buf, size_t len, struct check_request *r,
			struct pst_err *e);
int check_verdict_parse(const unsigned char *buf, size_t len, struct check_verdict *v,
			struct pst_err *e);

/* s is an OpenPGP fingerprint as the verdict carries it: 40 or 64 upper-case hex digits. */
bool check_fingerprint_valid(const char *s);

#endif
