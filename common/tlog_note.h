/*
 * c2sp.org/signed-note with Ed25519 keys, and the c2sp.org/tlog-checkpoint
 * body it signs. The formats are Go's (golang.org/x/mod/sumdb/note):
 *   verifier key  <name>+<8 hex key id>+<base64(0x01 || 32-byte public key)>
 *   private key   PRIVATE+KEY+<name>+<8 hex key id>+<base64(0x01 || 32-byte seed)>
 *   note          <body>\n<one line per signature: "— <name> <base64(id || sig)>\n">
 * where the key id is the first 4 bytes of SHA-256(name || "\n" || 0x01 || key),
 * the body ends in a newline and the signature covers exactly the body.
 *
 * Names are plain words (letters, digits and ". _ - / :"), so a log's name
 * can be its origin line. Bodies are printable ASCII lines: postern writes
 * nothing else and refuses to verify anything else.
 */
#ifndef POSTERN_TLOG_NOTE_H
#define POSTERN_TLOG_NOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "tlog.h"

#define TLOG_NAME_MAX 128
#define TLOG_VKEY_MAX (TLOG_NAME_MAX + 1 + 8 + 1 + 44 + 1)
#define TLOG_SKEY_MAX (12 + TLOG_VKEY_MAX)
#define TLOG_NOTE_MAX 8192
#define TLOG_NOTE_SIGS_MAX 16      /* signature lines a note may carry */

struct tlog_vkey {
	char name[TLOG_NAME_MAX + 1];
	unsigned char id[4];
	unsigned char pub[32];
};

struct tlog_skey {
	struct tlog_vkey vkey;
	unsigned char seed[32];
};

bool tlog_name_ok(const char *name, size_t len);

/* A new key pair named name, from the system's random source. */
int tlog_keygen(const char *name, struct tlog_skey *k, struct pst_err *e);

/* Text forms (NUL-terminated, no newline) and strict parsers of them. */
void tlog_vkey_format(const struct tlog_vkey *k, char out[TLOG_VKEY_MAX]);
void tlog_skey_format(const struct tlog_skey *k, char out[TLOG_SKEY_MAX]);
int tlog_vkey_parse(const char *s, size_t len, struct tlog_vkey *k, struct pst_err *e);
int tlog_skey_parse(const char *s, size_t len, struct tlog_skey *k, struct pst_err *e);
void tlog_skey_wipe(struct tlog_skey *k);

/* The note for body signed by k, into out (NUL-terminated); returns its length or -errno. */
int tlog_note_sign(const struct tlog_skey *k, const char *body, size_t len, char *out,
		   size_t outlen, struct pst_err *e);

/*
 * Whether note carries a valid signature by k: returns the body's length,
 * or -errno with a message when the note is malformed, has no signature by
 * k, or has one that does not verify. Signatures by other keys are ignored,
 * as the spec says.
 */
int tlog_note_open(const struct tlog_vkey *k, const char *note, size_t len, struct pst_err *e);

/* A checkpoint: "<origin>\n<size>\n<base64 root>\n", extension lines ignored. */
struct tlog_checkpoint {
	char origin[TLOG_NAME_MAX + 1];
	uint64_t size;
	struct tlog_hash root;
};

int tlog_checkpoint_format(const struct tlog_checkpoint *c, char *out, size_t outlen,
			   struct pst_err *e);
int tlog_checkpoint_parse(const char *body, size_t len, struct tlog_checkpoint *c,
			  struct pst_err *e);

#endif
