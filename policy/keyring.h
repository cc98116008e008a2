/*
 * What an uploader's keyring (<signatures.keyrings>/<user>.pgp) holds, for
 * postern-policy check: the file read with the checks postern.yaml gets,
 * its certificates listed by GnuPG, never by a parser of our own.
 */
#ifndef POSTERN_POLICY_KEYRING_H
#define POSTERN_POLICY_KEYRING_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

#define KEYRING_CERTS_MAX 32
/* A v6 fingerprint is 64 hex digits, a v4 one 40. */
#define KEYRING_FPR_MAX 64

struct keyring_cert {
	char fpr[KEYRING_FPR_MAX + 1];   /* upper-case hex */
	char validity;                   /* gpg's: 'r' revoked, 'e' expired, else '-' */
};

struct keyring_listing {
	size_t count;
	struct keyring_cert cert[KEYRING_CERTS_MAX];
	bool more;                       /* more certificates than KEYRING_CERTS_MAX */
};

/*
 * The certificates of the keyring at path. The file must pass
 * policy_read_trusted (root-owned, not group/other writable, trusted path,
 * at most 4 MiB); GnuPG then reads a private copy of the bytes checked.
 * Returns 0; -ENOENT when there is no such file; another -errno with e
 * saying what is wrong (unsafe, unreadable, not OpenPGP, gpg missing).
 */
int keyring_list(const char *path, struct keyring_listing *out, struct pst_err *e);

/*
 * The primary keys in len bytes of `gpg --with-colons --show-keys` output:
 * the fpr line after each pub line. Lines that are not fpr/pub records, or
 * fingerprints that are not 40 or 64 hex digits, are ignored. Returns the
 * number of certificates found (out->count).
 */
size_t keyring_parse_colons(const char *text, size_t len, struct keyring_listing *out);

#endif
