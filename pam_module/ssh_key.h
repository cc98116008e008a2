/*
 * Which SSH keys authenticated this connection, as OpenSSH fingerprints.
 *
 * sshd (with ExposeAuthInfo-style PAM support, 7.8 and later) puts the
 * methods that already succeeded into the PAM environment as
 * SSH_AUTH_INFO_0, one per line: "publickey <type> <base64 blob>", for a
 * certificate followed by sshd's description of it (ignored). A line
 * that claims to be a publickey but does not decode to a blob of that type
 * is an error, not something to skip: the value comes from sshd and a
 * malformed one means something is wrong.
 */
#ifndef POSTERN_SSH_KEY_H
#define POSTERN_SSH_KEY_H

#include <stddef.h>

#include "errmsg.h"
#include "totp_record.h"

#define SSH_AUTH_INFO_MAX 16384
#define SSH_KEYS_MAX TOTP_KEYS_MAX
#define SSH_TYPE_MAX 64

struct ssh_keys {
	char fpr[SSH_KEYS_MAX][TOTP_FPR_MAX];
	char type[SSH_KEYS_MAX][SSH_TYPE_MAX];   /* the key type, as sshd named it */
	size_t n;
};

/*
 * "SHA256:" + unpadded base64 of SHA-256(blob), as ssh-keygen -l prints,
 * for a key given as its type and base64 blob. The blob must start with
 * the type name. out needs TOTP_FPR_MAX bytes.
 */
int ssh_key_fingerprint(const char *type, const char *b64, char *out, struct pst_err *e);

/* Fingerprints of every publickey line of an SSH_AUTH_INFO_0 value. */
int ssh_auth_info_keys(const char *info, struct ssh_keys *out, struct pst_err *e);

/*
 * Keys of a public key file (id_ed25519.pub or authorized_keys style, one
 * "type base64 [comment]" per line, blank lines and # comments skipped);
 * leading authorized_keys options are refused: bind the plain key.
 */
int ssh_pubkey_text_keys(const char *text, struct ssh_keys *out, struct pst_err *e);

#endif
