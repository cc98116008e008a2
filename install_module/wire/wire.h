/*
 * The protocol between the maintainer's client and postern-installd.
 *
 * Request (client -> daemon), sent in one sendmsg() with the fds of an
 * install attached by SCM_RIGHTS: the opened upload, then, for a signed
 * install, its opened detached signature (exactly two, in that order):
 *
 *   "PSTN" | version u8 (1) | op u8 | flags u16 BE | body length u32 BE | body
 *
 * flags bits 0-1 are WIRE_FLAG_*; bits 8-9 say which signature file rides
 * along (enum wire_signature, install only); every other bit is refused.
 *
 * The body is exactly four NUL-terminated strings: name, from, port, sid.
 * name is the upload's file name (install), the released file name
 * (delete), a module (list-module), or empty (list-mine). from/port/sid are
 * the session the client claims; the daemon logs them for correlation only
 * and learns who asks from SO_PEERCRED.
 *
 * ci-install (postern-ci's handoff of a CI job's upload) is an install whose
 * body has nine more strings, the job as its verified token says: issuer,
 * project, ref, ref_type, protected ("yes"/"no"), pipeline, job, sha, user.
 * The daemon takes it only from postern-ci's uid; each value but ref is a
 * plain word of the ledger's alphabet, since the ledger and the release log
 * record them. Before the final refused or error frame of a ci-install the
 * daemon sends a status frame: the HTTP status postern-ci answers with.
 *
 * Responses (daemon -> client) are frames: type u8 | length u16 BE | text.
 * Any number of progress/wait/line frames, then exactly one final frame
 * (ok, refused or error), then the daemon closes the connection.
 *
 * The decoder MUST refuse anything it does not fully understand: wrong
 * magic or version, unknown op or flag, a body that is not exactly the four
 * strings, over-long fields, control characters or invalid UTF-8.
 */
#ifndef POSTERN_WIRE_H
#define POSTERN_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "postern_limits.h"

#define WIRE_MAGIC "PSTN"
#define WIRE_VERSION 1
#define WIRE_HEADER_LEN 12
#define WIRE_BODY_MAX 2048
#define WIRE_REQUEST_MAX (WIRE_HEADER_LEN + WIRE_BODY_MAX)
#define WIRE_TEXT_MAX 4000

enum wire_op {
	WIRE_OP_INSTALL = 1,
	WIRE_OP_DELETE = 2,
	WIRE_OP_LIST_MODULE = 3,
	WIRE_OP_LIST_MINE = 4,
	WIRE_OP_CI_INSTALL = 5,
};

#define WIRE_FLAG_DRY_RUN 0x1u
#define WIRE_FLAG_FORCE 0x2u
#define WIRE_FLAGS_KNOWN (WIRE_FLAG_DRY_RUN | WIRE_FLAG_FORCE)
#define WIRE_SIG_SHIFT 8
#define WIRE_SIG_MASK (0x3u << WIRE_SIG_SHIFT)

/*
 * The detached OpenPGP signature sent with an install, by the name it had
 * next to the upload. The daemon derives that name from the upload's
 * (wire_signature_name), so the client never names a second file.
 */
enum wire_signature {
	WIRE_SIG_NONE = 0,
	WIRE_SIG_ASC = 1,     /* FILE.asc: armored, over the uploaded bytes */
	WIRE_SIG_BIN = 2,     /* FILE.sig: binary, over the uploaded bytes */
	WIRE_SIG_TAR = 3,     /* <module>-<version>.tar.sign: over the uncompressed tar (kup) */
};

/* The CI job of a ci-install: "ci:<issuer>/<project>" fits a log entry's word. */
#define WIRE_CI_ISSUER_MAX 64
#define WIRE_CI_PROJECT_MAX 180
#define WIRE_CI_TEXT_MAX 255

struct wire_ci_job {
	char issuer[WIRE_CI_ISSUER_MAX + 1];    /* the ci.issuers name */
	char project[WIRE_CI_PROJECT_MAX + 1];
	char ref[WIRE_CI_TEXT_MAX + 1];
	char ref_type[16];
	bool ref_protected;
	char pipeline[32];
	char job[32];
	char sha[65];
	char user[WIRE_CI_TEXT_MAX + 1];        /* who triggered the job */
};

struct wire_request {
	enum wire_op op;
	unsigned flags;            /* WIRE_FLAG_* only */
	enum wire_signature sig;   /* WIRE_SIG_NONE unless a signed install */
	char name[INCOMING_NAME_MAX + 1];
	char from[64];
	char port[8];
	char sid[20];
	struct wire_ci_job ci;     /* WIRE_OP_CI_INSTALL only; all empty otherwise */
};

/* Installs a file: install or ci-install. */
bool wire_op_installs(enum wire_op op);

/* Response frame types. */
enum wire_msg {
	WIRE_MSG_PROGRESS = 'P',   /* a step is done or starting */
	WIRE_MSG_WAIT = 'W',       /* waiting for another mutation of the module */
	WIRE_MSG_LINE = 'L',       /* one line of list output */
	WIRE_MSG_OK = 'O',         /* final: done */
	WIRE_MSG_REFUSED = 'R',    /* final: refused, with the reason */
	WIRE_MSG_ERROR = 'E',      /* final: internal error, nothing changed */
	WIRE_MSG_STATUS = 'S',     /* ci-install: the HTTP status of the refusal that follows */
};

/* Encode r into buf; returns the length, or 0 when r does not fit or is invalid. */
size_t wire_request_encode(const struct wire_request *r, uint8_t *buf, size_t cap);

/* Body length announced by a complete header, or -EPROTO with a message. */
int wire_header_body_len(const uint8_t *hdr, size_t len, size_t *body_len,
			 struct pst_err *e);

/* Decode one complete request (header and body) of exactly len bytes. */
int wire_request_decode(const uint8_t *buf, size_t len, struct wire_request *r,
			struct pst_err *e);

bool wire_msg_is_final(int type);

/*
 * The name of the signature file of kind sig for the upload file (FILE.asc,
 * FILE.sig, or FILE up to its last ".tar." + ".tar.sign"). False when sig is
 * WIRE_SIG_NONE, file has no ".tar." for WIRE_SIG_TAR, or out is too small.
 */
bool wire_signature_name(const char *file, enum wire_signature sig, char *out, size_t outlen);

#endif
