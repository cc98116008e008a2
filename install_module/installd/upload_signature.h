/*
 * The detached OpenPGP signature of an upload, the daemon's side: its
 * staging copy (read once, capped), the uploader's keyring, and publishing
 * it beside the release. The verification itself is postern-check's
 * (check_spawn_upload); nothing here parses a byte of OpenPGP.
 */
#ifndef POSTERN_UPLOAD_SIGNATURE_H
#define POSTERN_UPLOAD_SIGNATURE_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "check_wire.h"
#include "errmsg.h"
#include "wire.h"

struct upload_signature {
	enum wire_signature form;     /* WIRE_SIG_NONE: unsigned, nothing below is set */
	char name[NAME_MAX + 1];      /* its name next to the upload = in the tree */
	int staging_fd;               /* anonymous copy, -1 until staged */
	int keyring_fd;               /* <keyrings>/<user>.pgp, -1 until opened */
	char sha256[65];
	uint64_t size;
};

/* An empty signature (form NONE, fds -1). */
void upload_signature_init(struct upload_signature *s);

/* Close whatever s holds. */
void upload_signature_close(struct upload_signature *s);

/* What the checker is asked to verify: CHECK_SIG_FILE or CHECK_SIG_TAR. */
enum check_signature_kind upload_signature_kind(const struct upload_signature *s);

/*
 * Copy the passed signature fd (a regular file owned by uid, opened for
 * reading, at most CHECK_SIGNATURE_MAX bytes, checked before a byte is
 * read) into an anonymous file under staging_dir_fd. 0, -EBADMSG with e the
 * refusal to give the maintainer, or another -errno (internal error).
 */
int upload_signature_stage(struct upload_signature *s, int sig_fd, uid_t uid,
			   int staging_dir_fd, struct pst_err *e);

/*
 * Open <keyrings>/<user>.pgp the way postern.yaml is opened: no symlink,
 * trusted path, the directory and file root-owned and not group/other
 * writable, a regular file. 0, -EBADMSG with e a refusal that says it is
 * the server's admins to fix, or another -errno.
 */
int upload_signature_keyring(struct upload_signature *s, const char *keyrings,
			     const char *user, struct pst_err *e);

/*
 * Give the staged copy its name in dir_fd (0644, fsynced; never replacing
 * a name; the directory fsynced). 0 or -errno.
 */
int upload_signature_publish(const struct upload_signature *s, int dir_fd, struct pst_err *e);

/*
 * The tarball (file) could not be linked after the signature was: move the
 * signature from dir_fd to an attic event of its own under attic_fd (the
 * tree never unlinks), so the tree is as before. Logged either way; the
 * caller reports its own, first error.
 */
void upload_signature_withdraw(const struct upload_signature *s, int dir_fd, int attic_fd,
			       const char *module, const char *file);

#endif
