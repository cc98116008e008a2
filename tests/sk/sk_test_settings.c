/*
 * The software key's settings, from the environment, read again at every
 * call (OpenSSH runs the key in ssh-sk-helper, which inherits the caller's
 * environment): the flags byte and the counter of the next signature, and
 * whether to say why a call failed. postern_sk_test.c's head comment says
 * what each POSTERN_SK_TEST_* variable means. TEST ONLY, like the rest of
 * libpostern-sk-test.so.
 *
 * A malformed value is an error, never a silent default: a typo must not
 * turn a refusal test into a pass.
 */
#define _GNU_SOURCE
#include "sk_test_settings.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sk_middleware_api.h"

#define DEFAULT_SIGN_FLAGS (SK_FLAG_USER_PRESENCE | SK_FLAG_USER_VERIFICATION)

void sk_debug_at(const char *func, const char *fmt, ...)
{
	va_list ap;

	if (getenv("POSTERN_SK_TEST_DEBUG") == NULL)
		return;
	fprintf(stderr, "postern-sk-test: %s: ", func);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* --- numbers and the flags ----------------------------------------------------- */

/* A whole string that is a number 0..max in C syntax (strtoul alone would
 * take leading blanks, a sign, or trailing junk). */
static bool number_parse(const char *s, unsigned long max, unsigned long *value)
{
	char *end;
	unsigned long v;

	if (s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return false;
	*value = v;
	return true;
}

/* 1 if the variable is unset (*value untouched), 0 with *value if it is a
 * number 0..max, -1 otherwise. */
static int env_number(const char *name, unsigned long max, unsigned long *value)
{
	const char *s = getenv(name);

	if (s == NULL)
		return 1;
	if (!number_parse(s, max, value)) {
		SK_DEBUG("%s is not a number from 0 to %lu", name, max);
		return -1;
	}
	return 0;
}

int sk_settings_flags(uint8_t *flags)
{
	unsigned long v = DEFAULT_SIGN_FLAGS;

	if (env_number("POSTERN_SK_TEST_FLAGS", UINT8_MAX, &v) < 0)
		return -1;
	*flags = (uint8_t)v;
	return 0;
}

/* --- the counter file --------------------------------------------------------- */

static int counter_file_read(const char *path, uint32_t *value)
{
	char buf[16];
	unsigned long v = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0 && errno == ENOENT) {
		*value = 0;
		return 0;
	}
	if (fd < 0) {
		SK_DEBUG("%s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || (size_t)n == sizeof(buf) - 1) {
		SK_DEBUG("%s: unreadable or too long", path);
		return -1;
	}
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	if (buf[0] != '\0' && !number_parse(buf, UINT32_MAX, &v)) {
		SK_DEBUG("%s: not a counter (a decimal number below 2^32)", path);
		return -1;
	}
	*value = (uint32_t)v;
	return 0;
}

/* A temporary file beside it, renamed over it: a reader sees the old value
 * or the new one, never half a line. */
static int counter_file_write(const char *path, uint32_t value)
{
	char *tmp = NULL;
	char line[16];
	int fd, len, rc = -1;

	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -1;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		SK_DEBUG("%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	len = snprintf(line, sizeof(line), "%" PRIu32 "\n", value);
	if (write(fd, line, (size_t)len) == len && close(fd) == 0) {
		fd = -1;
		rc = rename(tmp, path);
	}
	if (rc != 0) {
		SK_DEBUG("%s: cannot write it: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* The lock is on FILE.lock, not on FILE: rename() replaces FILE's inode,
 * so a lock on it would let a waiting signer read the old value and two
 * signatures carry the same counter. */
static int counter_file_advance(const char *path, uint32_t *counter)
{
	char *lock_path = NULL;
	uint32_t current;
	int lock_fd, rc = -1;

	if (asprintf(&lock_path, "%s.lock", path) < 0)
		return -1;
	lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock_fd < 0 || flock(lock_fd, LOCK_EX) != 0) {
		SK_DEBUG("%s: %s", lock_path, strerror(errno));
		goto out;
	}
	if (counter_file_read(path, &current) != 0)
		goto out;
	if (current == UINT32_MAX) {
		SK_DEBUG("%s: the counter cannot go past 2^32-1", path);
		goto out;
	}
	if (counter_file_write(path, current + 1) != 0)
		goto out;
	*counter = current + 1;
	rc = 0;
out:
	if (lock_fd >= 0)
		close(lock_fd);
	free(lock_path);
	return rc;
}

int sk_settings_counter(uint32_t *counter)
{
	unsigned long fixed;
	const char *file;
	int r = env_number("POSTERN_SK_TEST_COUNTER", UINT32_MAX, &fixed);

	if (r < 0)
		return -1;
	if (r == 0) {
		*counter = (uint32_t)fixed;
		return 0;
	}
	file = getenv("POSTERN_SK_TEST_COUNTER_FILE");
	if (file == NULL) {
		*counter = 1;
		return 0;
	}
	return counter_file_advance(file, counter);
}
