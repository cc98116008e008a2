/*
 * The signature of an upload, the daemon's side (see upload_signature.h).
 * MUST: check the passed fd (type, owner, size) before reading it, read it
 * once, and trust a keyring only as root's, on a trusted path.
 * MUST NOT: decode the signature or the keyring, or open a path a client named.
 */
#define _GNU_SOURCE
#include "upload_signature.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "attic.h"
#include "installd.h"
#include "safefile.h"
#include "upload_stage.h"

void upload_signature_init(struct upload_signature *s)
{
	memset(s, 0, sizeof(*s));
	s->form = WIRE_SIG_NONE;
	s->staging_fd = -1;
	s->keyring_fd = -1;
}

void upload_signature_close(struct upload_signature *s)
{
	if (s->staging_fd >= 0)
		close(s->staging_fd);
	if (s->keyring_fd >= 0)
		close(s->keyring_fd);
	s->staging_fd = -1;
	s->keyring_fd = -1;
}

enum check_signature_kind upload_signature_kind(const struct upload_signature *s)
{
	switch (s->form) {
	case WIRE_SIG_ASC:
	case WIRE_SIG_BIN:
		return CHECK_SIG_FILE;
	case WIRE_SIG_TAR:
		return CHECK_SIG_TAR;
	case WIRE_SIG_NONE:
		break;
	}
	return CHECK_SIG_NONE;
}

/* The passed fd: a regular file of the uploader, readable, within the cap. */
static int check_passed(const struct upload_signature *s, int sig_fd, uid_t uid,
			struct pst_err *e)
{
	struct stat st;
	int fl = fcntl(sig_fd, F_GETFL);

	if (fstat(sig_fd, &st) != 0 || fl < 0)
		return pst_fail(e, EBADMSG, "signature %s cannot be inspected", s->name);
	if (!S_ISREG(st.st_mode))
		return pst_fail(e, EBADMSG, "signature %s is not a regular file", s->name);
	if (st.st_uid != uid)
		return pst_fail(e, EBADMSG,
				"signature %s is owned by uid %lu, not by you (uid %lu): only your own files can be installed",
				s->name, (unsigned long)st.st_uid, (unsigned long)uid);
	if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_PATH) != 0)
		return pst_fail(e, EBADMSG, "signature %s was not opened for reading", s->name);
	if (st.st_size > CHECK_SIGNATURE_MAX)
		return pst_fail(e, EBADMSG,
				"signature %s is larger than 64 KiB: %lld bytes (a detached signature is a few hundred bytes; make it with gpg --detach-sign)",
				s->name, (long long)st.st_size);
	if (st.st_size == 0)
		return pst_fail(e, EBADMSG, "signature %s is empty (make it with gpg --detach-sign)",
				s->name);
	return 0;
}

int upload_signature_stage(struct upload_signature *s, int sig_fd, uid_t uid,
			   int staging_dir_fd, struct pst_err *e)
{
	struct upload_staged staged;
	int staging;
	int rc;

	if (sig_fd < 0)
		return pst_fail(e, EBADMSG, "signature %s was not passed with the request", s->name);
	rc = check_passed(s, sig_fd, uid, e);
	if (rc < 0)
		return rc;
	staging = openat(staging_dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (staging < 0)
		return pst_fail(e, errno, "cannot create a staging file: %s", strerror(errno));
	rc = upload_stage(sig_fd, staging, CHECK_SIGNATURE_MAX, &staged, e);
	if (rc == -EFBIG)
		rc = pst_fail(e, EBADMSG, "signature %s is larger than 64 KiB: it grew while it was read",
			      s->name);
	if (rc == 0 && staged.size == 0)
		rc = pst_fail(e, EBADMSG, "signature %s is empty (make it with gpg --detach-sign)",
			      s->name);
	if (rc == 0 && (fchmod(staging, INSTALLD_TREE_FILE_MODE) != 0 || fsync(staging) != 0))
		rc = pst_fail(e, errno, "cannot sync the signature's staging file: %s",
			      strerror(errno));
	if (rc < 0) {
		close(staging);
		return rc;
	}
	s->staging_fd = staging;
	s->size = staged.size;
	memcpy(s->sha256, staged.sha256, sizeof(s->sha256));
	return 0;
}

int upload_signature_keyring(struct upload_signature *s, const char *keyrings,
			     const char *user, struct pst_err *e)
{
	static const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	static const struct sf_rule file_rule = {
		.type = S_IFREG, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	char name[NAME_MAX + 1];
	struct pst_err why;
	int dirfd;
	int fd;

	if (keyrings == NULL || snprintf(name, sizeof(name), "%s.pgp", user) >= (int)sizeof(name))
		return pst_fail(e, EBADMSG, "no keyring for %s: signatures.keyrings is not set; ask the server's admins to add your key",
				user);
	dirfd = sf_open_dir_path(keyrings, &dir_rule, SF_TRUSTED_PATH | SF_PATH_ONLY, &why);
	if (dirfd == -ENOENT)
		return pst_fail(e, EBADMSG, "no keyring for %s in %s (the directory does not exist): ask the server's admins to add your key",
				user, keyrings);
	if (dirfd < 0)
		return pst_fail(e, EBADMSG, "the keyrings directory %s is not safe to use (%s): the server's admins must fix it (root-owned, not writable by group or others); nothing was installed",
				keyrings, why.msg);
	fd = sf_openat(dirfd, name, O_RDONLY, &file_rule, NULL, &why);
	close(dirfd);
	if (fd == -ENOENT)
		return pst_fail(e, EBADMSG, "no keyring for %s in %s: ask the server's admins to add your key (%s/%s)",
				user, keyrings, keyrings, name);
	if (fd < 0)
		return pst_fail(e, EBADMSG, "your keyring %s/%s is not safe to use (%s): the server's admins must fix it (root-owned, mode 0644, not a symlink); nothing was installed",
				keyrings, name, why.msg);
	s->keyring_fd = fd;
	return 0;
}

int upload_signature_publish(const struct upload_signature *s, int dir_fd, struct pst_err *e)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->staging_fd);
	if (linkat(AT_FDCWD, proc, dir_fd, s->name, AT_SYMLINK_FOLLOW) != 0)
		return pst_fail(e, errno, "%s: cannot link into the tree: %s", s->name, strerror(errno));
	if (fsync(dir_fd) != 0)
		return pst_fail(e, errno, "%s: cannot sync its directory: %s", s->name, strerror(errno));
	return 0;
}

void upload_signature_withdraw(const struct upload_signature *s, int dir_fd, int attic_fd,
			       const char *module, const char *file)
{
	char rel[256];
	struct pst_err e;
	int event_fd = attic_event_open(attic_fd, module, rel, sizeof(rel), &e);

	if (event_fd >= 0 && attic_move(dir_fd, s->name, event_fd, &e) == 0)
		syslog(LOG_WARNING, "install of %s failed: its signature %s was moved to %s",
		       file, s->name, rel);
	else
		syslog(LOG_ERR, "install of %s failed and its signature %s stays in the tree: %s",
		       file, s->name, e.msg);
	if (event_fd >= 0)
		close(event_fd);
}
