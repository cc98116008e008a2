/*
 * The checks of --release before any connection: the server's own code
 * (install_module's release_name.c and tarball*.c, linked, not copied) run
 * on the maintainer's file, so a broken tarball is refused on the laptop
 * with the message the server would give.
 *
 * It MUST NOT write anything: the daemon's staging pass (upload_stage(),
 * which hashes) copies to /dev/null, then the checker's rules read the file.
 * The limits are the server's defaults; a server configured stricter still
 * refuses on its side.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "policy_internal.h"
#include "release.h"
#include "tarball.h"
#include "upload_stage.h"

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static int open_upload(const char *path, const struct upload_limits *lim, struct pst_err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0 && errno == ELOOP)
		return pst_fail(e, ELOOP, "it is a symbolic link (give the tarball itself)");
	if (fd < 0)
		return pst_fail(e, errno, "cannot open it: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return pst_fail(e, EINVAL, "the upload is not a regular file (upload the tarball itself)");
	}
	if ((uint64_t)st.st_size > lim->max_compressed) {
		close(fd);
		return pst_fail(e, EFBIG, "the upload is %lld bytes, more than the limit of %llu",
				(long long)st.st_size, (unsigned long long)lim->max_compressed);
	}
	return fd;
}

/* The daemon's pass (SHA-256) then the checker's rules, over the same open file. */
static int check_open_upload(struct release_file *f, int fd, const struct upload_limits *lim,
			     struct pst_err *e)
{
	struct tarball_expect expect = { .module = f->rn.module, .version = f->rn.version,
		.compression = f->rn.compression, .limits = lim };
	struct upload_staged staged;
	struct tarball_result *result;
	int sink, rc;

	sink = open("/dev/null", O_WRONLY | O_CLOEXEC);
	result = malloc(sizeof(*result));
	if (sink < 0 || result == NULL)
		rc = pst_fail(e, ENOMEM, "cannot set up the check: %s", strerror(errno));
	else
		rc = upload_stage(fd, sink, lim->max_compressed, &staged, e);
	if (rc == 0 && lseek(fd, 0, SEEK_SET) != 0)
		rc = pst_fail(e, errno, "cannot read it again: %s", strerror(errno));
	if (rc == 0)
		rc = tarball_check(fd, &expect, result, e);
	if (rc == 0)
		memcpy(f->sha256, staged.sha256, sizeof(f->sha256));
	free(result);
	if (sink >= 0)
		close(sink);
	return rc;
}

int local_check(struct release_file *f, struct pst_err *e)
{
	struct policy_settings defaults;
	int fd, rc;

	f->name = last_component(f->path);
	if (release_name_parse(f->name, &f->rn, e) < 0)
		return -EINVAL;
	policy_settings_defaults(&defaults);
	fd = open_upload(f->path, &defaults.limits, e);
	if (fd < 0)
		return fd;
	rc = check_open_upload(f, fd, &defaults.limits, e);
	close(fd);
	return rc;
}
