/* The used-token store (jti_store.h). */
#define _GNU_SOURCE
#include "jti_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "hex.h"
#include "safefile.h"

#define JTI_NAME_LEN 64
/* A record that cannot be read is kept this long after it was written. */
#define JTI_UNREADABLE_KEEP 86400

int jti_store_open(const char *path, struct jti_store *s, struct pst_err *e)
{
	const struct sf_rule rule = {
		.type = S_IFDIR, .uid = geteuid(), .gid = SF_ANY_GID, .forbid = 077, .max_size = 0,
	};
	int fd = sf_open_dir_path(path, &rule, 0, e);

	s->dirfd = fd;
	if (fd < 0)
		pst_err_prefix(e, "the used-token store %s", path);
	return fd < 0 ? fd : 0;
}

void jti_store_close(struct jti_store *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
}

/* The record's name: hex SHA-256 of issuer, NUL, jti. */
static int record_name(const char *issuer, const char *jti, char out[JTI_NAME_LEN + 1])
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
		 EVP_DigestUpdate(ctx, issuer, strlen(issuer) + 1) == 1 &&
		 EVP_DigestUpdate(ctx, jti, strlen(jti)) == 1 &&
		 EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && mdlen == sizeof(md);

	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -EIO;
	hex_lower(md, sizeof(md), out);
	out[JTI_NAME_LEN] = '\0';
	return 0;
}

/* A complete, fsynced temporary holding exp; its name in tmp. */
static int write_temp(int dirfd, const char *name, int64_t exp, char *tmp, size_t size)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%" PRId64 "\n", exp);
	int fd, rc = 0;

	unsigned char nonce[8];
	char nonce_hex[2 * sizeof(nonce) + 1];

	/* Random, not the pid: threads of one server share it. */
	if (getrandom(nonce, sizeof(nonce), 0) != (ssize_t)sizeof(nonce))
		return -EIO;
	hex_lower(nonce, sizeof(nonce), nonce_hex);
	nonce_hex[sizeof(nonce_hex) - 1] = '\0';
	snprintf(tmp, size, ".%s.%s.tmp", name, nonce_hex);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (sf_write_full(fd, text, (size_t)len) < 0 || fsync(fd) != 0)
		rc = -errno;
	close(fd);
	if (rc < 0)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

int jti_store_use(struct jti_store *s, const char *issuer, const char *jti, int64_t exp,
		  struct pst_err *e)
{
	char name[JTI_NAME_LEN + 1], tmp[JTI_NAME_LEN + 32];
	int rc = record_name(issuer, jti, name);

	if (rc == 0)
		rc = write_temp(s->dirfd, name, exp, tmp, sizeof(tmp));
	if (rc < 0)
		return pst_fail(e, -rc, "cannot record the token as used: %s", strerror(-rc));
	rc = linkat(s->dirfd, tmp, s->dirfd, name, 0) == 0 ? 0 : -errno;
	unlinkat(s->dirfd, tmp, 0);
	if (rc == -EEXIST)
		return pst_fail(e, EEXIST, "this token was used before (each CI job's token releases "
				"once: run the job again for a new one)");
	if (rc == 0 && fsync(s->dirfd) != 0)
		rc = -errno;
	if (rc < 0)
		return pst_fail(e, -rc, "cannot record the token as used: %s", strerror(-rc));
	return 0;
}

/* When the record may go: its exp, or for one that cannot be read, a day after it was made. */
static int64_t record_end(int dirfd, const char *name)
{
	char text[32] = "";
	struct stat st;
	ssize_t n = -1;
	char *end;
	int64_t exp;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0) {
		n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, text, sizeof(text) - 1) : -1;
		close(fd);
	}
	if (fd < 0 || n < 0)
		return INT64_MAX;
	text[n] = '\0';
	exp = strtoll(text, &end, 10);
	if (end == text || *end != '\n')
		return (int64_t)st.st_mtime + JTI_UNREADABLE_KEEP;
	return exp;
}

static bool is_record(const char *name)
{
	size_t i;

	for (i = 0; name[i] != '\0'; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return i == JTI_NAME_LEN;
}

int jti_store_prune(struct jti_store *s, time_t now, unsigned skew, struct pst_err *e)
{
	int fd = dup(s->dirfd), gone = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		return pst_fail(e, errno, "cannot list the used-token store: %s", strerror(errno));
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (!is_record(de->d_name))
			continue;
		if (record_end(s->dirfd, de->d_name) + (int64_t)skew < (int64_t)now &&
		    unlinkat(s->dirfd, de->d_name, 0) == 0)
			gone++;
	}
	closedir(d);
	if (gone > 0)
		fsync(s->dirfd);
	return gone;
}
