/*
 * The incoming directory's usage and the quota check (incoming_quota.h).
 * MUST: follow no symlink and count what is on disk (st_blocks), so a
 * sparse or hidden file cannot hide its size.
 */
#define _GNU_SOURCE
#include "incoming_quota.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define USAGE_DEPTH_MAX 64

static uint64_t add_capped(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int usage_at(int dirfd, unsigned depth, uint64_t *bytes, struct pst_err *e)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	struct stat st;
	int sub, rc = 0;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return pst_fail(e, errno, "cannot read your incoming directory: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		*bytes = add_capped(*bytes, (uint64_t)st.st_blocks * 512);
		if (!S_ISDIR(st.st_mode) || depth >= USAGE_DEPTH_MAX)
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0) {
			rc = usage_at(sub, depth + 1, bytes, e);
			close(sub);
		}
	}
	closedir(d);
	return rc;
}

int incoming_usage(int dirfd, uint64_t *bytes, struct pst_err *e)
{
	*bytes = 0;
	return usage_at(dirfd, 0, bytes, e);
}

void incoming_size_text(uint64_t n, char *out, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)n;
	size_t u = 0;

	if (n < 1024) {
		snprintf(out, len, "%llu bytes", (unsigned long long)n);
		return;
	}
	for (v /= 1024; v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0]); u++)
		v /= 1024;
	if (v == (double)(uint64_t)v)
		snprintf(out, len, "%llu %s", (unsigned long long)v, units[u]);
	else
		snprintf(out, len, "%.1f %s", v, units[u]);
}

int incoming_quota_check(int dirfd, uint64_t total, struct pst_err *e)
{
	char used_text[32], total_text[32];
	uint64_t used;
	int rc = incoming_usage(dirfd, &used, e);

	if (rc < 0)
		return rc;
	if (used < total)
		return 0;
	incoming_size_text(used, used_text, sizeof(used_text));
	incoming_size_text(total, total_text, sizeof(total_text));
	return pst_fail(e, EDQUOT, "your incoming directory holds %s, and uploads start only below "
			"%s (limits.incoming_total): install-module what is there, or remove what "
			"you do not need with delete-own, then upload again", used_text, total_text);
}
