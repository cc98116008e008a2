/*
 * Listing an uploader's keyring for postern-policy check: the bytes read
 * through policy_read_trusted, copied into a fresh private directory, listed
 * by gpg run with a fixed argv, an environment built from nothing, that
 * directory as its home, and a cap on what it may print.
 * MUST NOT parse OpenPGP itself, nor let gpg see the admin's home, agent or
 * the keyring path (it reads the copy of the bytes that passed the checks).
 */
#define _GNU_SOURCE
#include "keyring.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policy.h"
#include "safefile.h"
#include "spawn.h"

#define GPG_PATH "/usr/bin/gpg"
#define GPG_OUTPUT_MAX (256u * 1024)
#define GPG_TIMEOUT_SEC 20
#define KEYRING_COPY "keyring.pgp"
#define COLON_FIELDS 10

/* Field n (from 1) of a colon record, or NULL; *len its length. */
static const char *colon_field(const char *line, size_t linelen, unsigned n, size_t *len)
{
	const char *p = line, *end = line + linelen;
	const char *colon;

	while (--n > 0) {
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon == NULL)
			return NULL;
		p = colon + 1;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	*len = (size_t)((colon != NULL ? colon : end) - p);
	return p;
}

static bool is_fingerprint(const char *s, size_t len)
{
	size_t i;

	if (len != 40 && len != KEYRING_FPR_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

size_t keyring_parse_colons(const char *text, size_t len, struct keyring_listing *out)
{
	const char *line = text, *end = text + len;
	char validity = 0;   /* of the pub line whose fpr comes next; 0: none pending */

	memset(out, 0, sizeof(*out));
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t linelen = (size_t)((nl != NULL ? nl : end) - line);
		const char *f;
		size_t flen;

		if (linelen >= 4 && memcmp(line, "pub:", 4) == 0) {
			f = colon_field(line, linelen, 2, &flen);
			validity = f != NULL && flen == 1 && (*f == 'r' || *f == 'e') ? *f : '-';
		} else if (validity != 0 && linelen >= 4 && memcmp(line, "fpr:", 4) == 0) {
			f = colon_field(line, linelen, COLON_FIELDS, &flen);
			if (f != NULL && is_fingerprint(f, flen)) {
				if (out->count == KEYRING_CERTS_MAX) {
					out->more = true;
				} else {
					memcpy(out->cert[out->count].fpr, f, flen);
					out->cert[out->count].fpr[flen] = '\0';
					out->cert[out->count++].validity = validity;
				}
			}
			validity = 0;
		}
		line = nl != NULL ? nl + 1 : end;
	}
	return out->count;
}

/* Everything gpg left in its private home, then the home itself. */
static void remove_tree_at(int dirfd)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;

	if (d == NULL) {
		close(dirfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd, de->d_name, 0) < 0 && errno == EISDIR) {
			int sub = openat(dirfd, de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				remove_tree_at(sub);
			unlinkat(dirfd, de->d_name, AT_REMOVEDIR);
		}
	}
	closedir(d);
}

static void remove_home(const char *home)
{
	int fd = open(home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		remove_tree_at(fd);
	rmdir(home);
}

static int copy_into(const char *home, const char *buf, size_t len, struct pst_err *e)
{
	int dirfd = open(home, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd, rc;

	if (dirfd < 0)
		return pst_fail(e, errno, "%s: %s", home, strerror(errno));
	fd = openat(dirfd, KEYRING_COPY, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd < 0)
		return pst_fail(e, errno, "%s/" KEYRING_COPY ": %s", home, strerror(errno));
	rc = sf_write_full(fd, buf, len);
	close(fd);
	return rc < 0 ? pst_fail(e, -rc, "%s/" KEYRING_COPY ": %s", home, strerror(-rc)) : 0;
}

/* gpg's listing of home/keyring.pgp into out (at most cap bytes). */
static int run_gpg(const char *home, char *out, size_t cap, size_t *len, struct pst_err *e)
{
	char copy[PATH_MAX];
	const char *const argv[] = {
		GPG_PATH, "--batch", "--no-options", "--no-autostart", "--no-tty",
		"--homedir", home, "--with-colons", "--show-keys", "--", copy, NULL,
	};
	struct spawn_env env = { 0 };
	int status = 0, rc;

	if (access(GPG_PATH, X_OK) < 0)
		return pst_fail(e, ENOEXEC, "certificates not listed: " GPG_PATH
				" is not installed (apt install gnupg)");
	snprintf(copy, sizeof(copy), "%s/" KEYRING_COPY, home);
	rc = spawn_env_add(&env, "PATH", "/usr/bin:/bin");
	if (rc == 0)
		rc = spawn_env_add(&env, "LC_ALL", "C");
	if (rc < 0) {
		spawn_env_free(&env);
		return pst_fail(e, -rc, "cannot build gpg's environment: %s", strerror(-rc));
	}
	rc = spawn_capture(argv, spawn_env_array(&env), GPG_TIMEOUT_SEC, out, cap, len, &status, e);
	spawn_env_free(&env);
	if (rc == -ETIMEDOUT)
		return pst_fail(e, ETIMEDOUT, "gpg took more than %d s to list it", GPG_TIMEOUT_SEC);
	if (rc == -EFBIG)
		return pst_fail(e, EFBIG, "gpg's listing is larger than %u bytes", GPG_OUTPUT_MAX);
	if (rc < 0)
		return rc;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return pst_fail(e, EINVAL, "holds no OpenPGP certificate gpg can read (gpg exit status %d): "
				"export the key again with gpg --export FINGERPRINT",
				WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

/* An OpenPGP packet's first octet has its high bit set; armor is text. */
static bool keyring_is_mixed(const char *buf, size_t len)
{
	static const char armor[] = "-----BEGIN PGP PUBLIC KEY BLOCK-----";

	return len > 0 && ((unsigned char)buf[0] & 0x80) != 0 &&
	       memmem(buf, len, armor, sizeof(armor) - 1) != NULL;
}

int keyring_list(const char *path, struct keyring_listing *out, struct pst_err *e)
{
	char home[] = "/tmp/postern-policy-gpg.XXXXXX";
	char *buf = NULL, *listing = NULL;
	size_t len = 0, listed = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = policy_read_trusted(path, &buf, &len, e);
	if (rc < 0)
		return rc;
	if (keyring_is_mixed(buf, len)) {
		free(buf);
		return pst_fail(e, EBADMSG, "%s holds binary keys followed by armored ones, which "
				"gpg cannot read and gpgv (it checks that the signing key is still "
				"valid) reads only in part: store every key binary (gpg --export "
				"FINGERPRINT... > %s)", path, path);
	}
	listing = malloc(GPG_OUTPUT_MAX);
	if (listing == NULL || mkdtemp(home) == NULL) {
		rc = pst_fail(e, listing == NULL ? ENOMEM : errno, "%s: no room to list it: %s", path,
			      strerror(listing == NULL ? ENOMEM : errno));
		free(listing);
		free(buf);
		return rc;
	}
	rc = copy_into(home, buf, len, e);
	if (rc == 0)
		rc = run_gpg(home, listing, GPG_OUTPUT_MAX, &listed, e);
	if (rc == 0)
		keyring_parse_colons(listing, listed, out);
	else
		pst_err_prefix(e, "%s", path);
	remove_home(home);
	free(listing);
	free(buf);
	return rc;
}
