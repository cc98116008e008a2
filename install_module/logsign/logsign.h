/*
 * postern-logsign's one decision: sign a new checkpoint of the release log
 * only when it is a consistency-proved extension of the last one this
 * signer signed. The key and that last checkpoint live in the signer's own
 * directory (its user's, mode 0700), which postern-installd cannot read, so
 * a compromised daemon can append to the log but never get a rewritten
 * history signed.
 *
 * Request (one packet, text):
 *   postern-logsign 1
 *   old <size the daemon's checkpoint has>
 *   new <size> <base64 root>
 *   proof <base64 hash>          (the consistency proof old -> new, 0..64 lines)
 * Answer:
 *   ok <verifier key>\n<the signed checkpoint note>
 *   refused <what is wrong and what to do>\n
 *
 * Files in the directory: key (PRIVATE+KEY+..., 0600, owned by the signer),
 * vkey (its verifier key, 0644), signed (the last note signed, 0600), lock.
 */
#ifndef POSTERN_LOGSIGN_H
#define POSTERN_LOGSIGN_H

#include <stddef.h>

#include "errmsg.h"

#define LOGSIGN_REQUEST_MAX 8192
#define LOGSIGN_ANSWER_MAX 8192

#include <stdint.h>

#include "tlog.h"

struct logsign_request {
	uint64_t old, size;
	struct tlog_hash root;
	struct tlog_proof proof;
};

/* Parses one request (the protocol above, nothing else). */
int logsign_parse_request(const char *req, size_t len, struct logsign_request *r,
			  struct pst_err *e);

/* Answers one request into answer (NUL-terminated); returns its length. Never fails silently. */
int logsign_answer(int dir_fd, const char *req, size_t len, char *answer, size_t cap);

/* Makes the key pair named name in dir_fd; refuses when a key exists. Writes the vkey text. */
int logsign_keygen(int dir_fd, const char *name, char *vkey, size_t cap, struct pst_err *e);

/* The verifier key of the key in dir_fd. */
int logsign_vkey(int dir_fd, char *vkey, size_t cap, struct pst_err *e);

#endif
