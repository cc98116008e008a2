/*
 * Opens and verifies a maintainer's incoming directory (incoming.h). It only
 * checks; it must never create, chmod or chown anything.
 */
#include "incoming.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

/*
 * <incoming> is root:root 0711: maintainers may pass through it but not
 * list it, so it is held as an O_PATH fd (search permission is all that
 * takes), reached by a trusted walk so nobody but root can have swapped it.
 */
static int base_open(const char *base, struct pst_err *e)
{
	const struct sf_rule base_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	char path[PATH_MAX];
	size_t len = strlen(base);
	int fd;

	while (len > 1 && base[len - 1] == '/')
		len--;
	if (base[0] != '/' || len >= sizeof(path))
		return pst_fail(e, EINVAL, "%s: paths.incoming must be an absolute path", base);
	memcpy(path, base, len);
	path[len] = '\0';
	if (!sf_is_component(strrchr(path, '/') + 1))
		return pst_fail(e, EINVAL, "%s: paths.incoming must name a directory below /", base);
	fd = sf_open_dir_path(path, &base_rule, SF_TRUSTED_PATH | SF_PATH_ONLY, e);
	return fd;
}

/* We may not even open it: say whose it is and how it is set. */
static int explain_denied(int basefd, const char *base, const char *user, struct pst_err *e)
{
	struct stat st;

	if (fstatat(basefd, user, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -EACCES;
	return pst_fail(e, EACCES,
			"your incoming directory %s/%s is owned by uid %lu with mode %04o, expected your own uid and mode 0700; tell an administrator",
			base, user, (unsigned long)st.st_uid, (unsigned)(st.st_mode & 07777));
}

int incoming_dir_open(const char *base, const char *user, uid_t uid, struct pst_err *e)
{
	const struct sf_rule own_rule = {
		.type = S_IFDIR, .uid = uid, .gid = SF_ANY_GID, .forbid = 077, .max_size = 0,
	};
	struct stat st;
	int basefd;
	int fd;

	basefd = base_open(base, e);
	if (basefd < 0) {
		pst_err_prefix(e, "the incoming directory is not safe to use (tell an administrator)");
		return basefd;
	}
	fd = sf_openat(basefd, user, O_RDONLY | O_DIRECTORY, &own_rule, &st, e);
	if (fd == -EACCES)
		fd = explain_denied(basefd, base, user, e);
	close(basefd);
	if (fd == -ENOENT)
		return pst_fail(e, ENOENT,
				"your incoming directory %s/%s does not exist (it is created when you are enrolled; ask an administrator)",
				base, user);
	if (fd == -ENOTDIR || fd == -ELOOP)
		return pst_fail(e, -fd, "your incoming directory %s/%s is not a directory (a symlink?), refused; tell an administrator",
				base, user);
	if (fd < 0) {
		pst_err_prefix(e, "your incoming directory %s/%s", base, user);
		return fd;
	}
	if ((st.st_mode & 07777) != 0700) {
		close(fd);
		return pst_fail(e, EPERM, "your incoming directory %s/%s has mode %04o, expected 0700; tell an administrator",
				base, user, (unsigned)(st.st_mode & 07777));
	}
	return fd;
}
