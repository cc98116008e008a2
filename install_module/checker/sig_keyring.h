/*
 * The uploader's keyring as gpgv reads it. sqv reads binary and armored
 * keyrings; gpgv only binary ones (an armored keyring looks to it like a
 * missing key), so an armored keyring is converted by GnuPG's own
 * gpg --dearmor, confined like the verifiers. Nothing here parses OpenPGP.
 */
#ifndef POSTERN_SIG_KEYRING_H
#define POSTERN_SIG_KEYRING_H

#include "errmsg.h"
#include "sandbox.h"

#define SIG_DEARMOR_PATH "/usr/bin/gpg"

/*
 * keyring: a sealed memfd (sig_memfd_copy). Returns a new fd of a sealed
 * memfd holding the keyring in binary form (a duplicate of keyring when
 * it already is binary: its first octet has the packet-tag bit), or
 * -EBADMSG with e saying the admins' keyring cannot be read (a refusal:
 * the upload is not at fault), or another -errno with e filled (internal).
 */
int sig_keyring_binary(int keyring, const struct sandbox_limits *c, struct pst_err *e);

#endif
