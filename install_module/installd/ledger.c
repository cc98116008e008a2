/*
 * Formats and parses the ledger's lines (ledger.h). It must never write a value
 * that is not a plain word, so a line can never be forged.
 */
#define _GNU_SOURCE
#include "ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"

#define LEDGER_NAME "ledger"
#define WORD_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+,:/@-"

static bool is_word(const char *s)
{
	return s[0] != '\0' && s[strspn(s, WORD_CHARS)] == '\0';
}

/* The CI job's fields and the line's end. */
static bool format_ci(const struct ledger_record *r, char *out, size_t outlen)
{
	const char *values[] = { r->ci, r->ci_pipeline, r->ci_job, r->ci_sha, r->ci_user };
	size_t i;
	int n;

	if (r->ci[0] == '\0')
		return snprintf(out, outlen, "\n") == 1 && outlen > 1;
	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		if (!is_word(values[i]))
			return false;
	n = snprintf(out, outlen, " ci=%s ci_pipeline=%s ci_job=%s ci_sha=%s ci_user=%s\n",
		     r->ci, r->ci_pipeline, r->ci_job, r->ci_sha, r->ci_user);
	return n > 0 && (size_t)n < outlen;
}

bool ledger_format(const struct ledger_record *r, char *out, size_t outlen)
{
	const char *values[] = { r->op, r->user, r->module, r->version, r->file, r->sha256,
				 r->maintainer, r->basis, r->dir, r->forced, r->attic,
				 r->signature, r->signer };
	char when[32];
	struct tm tm;
	size_t i;
	int n;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		if (!is_word(values[i]))
			return false;
	}
	if (gmtime_r(&r->when, &tm) == NULL || strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return false;
	n = snprintf(out, outlen,
		     "time=%s op=%s user=%s module=%s version=%s file=%s sha256=%s maintainer=%s "
		     "basis=%s dir=%s forced=%s attic=%s signature=%s signer=%s",
		     when, r->op, r->user, r->module, r->version, r->file, r->sha256,
		     r->maintainer, r->basis, r->dir, r->forced, r->attic, r->signature, r->signer);
	if (n <= 0 || (size_t)n >= outlen)
		return false;
	return format_ci(r, out + n, outlen - (size_t)n);
}

static bool set_field(struct ledger_record *r, const char *key, const char *value)
{
	struct { const char *key; char *dst; size_t len; } fields[] = {
		{ "op", r->op, sizeof(r->op) },
		{ "user", r->user, sizeof(r->user) },
		{ "module", r->module, sizeof(r->module) },
		{ "version", r->version, sizeof(r->version) },
		{ "file", r->file, sizeof(r->file) },
		{ "sha256", r->sha256, sizeof(r->sha256) },
		{ "maintainer", r->maintainer, sizeof(r->maintainer) },
		{ "basis", r->basis, sizeof(r->basis) },
		{ "dir", r->dir, sizeof(r->dir) },
		{ "forced", r->forced, sizeof(r->forced) },
		{ "attic", r->attic, sizeof(r->attic) },
		{ "signature", r->signature, sizeof(r->signature) },
		{ "signer", r->signer, sizeof(r->signer) },
		{ "ci", r->ci, sizeof(r->ci) },
		{ "ci_pipeline", r->ci_pipeline, sizeof(r->ci_pipeline) },
		{ "ci_job", r->ci_job, sizeof(r->ci_job) },
		{ "ci_sha", r->ci_sha, sizeof(r->ci_sha) },
		{ "ci_user", r->ci_user, sizeof(r->ci_user) },
	};
	struct tm tm;
	const char *end;
	size_t i;

	if (strcmp(key, "time") == 0) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(value, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (end == NULL || *end != '\0')
			return false;
		r->when = timegm(&tm);
		return true;
	}
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		if (strcmp(key, fields[i].key) == 0)
			return str_copy(fields[i].dst, fields[i].len, value);
	}
	return true;   /* a field a later version added: skip it */
}

bool ledger_parse(const char *line, struct ledger_record *r)
{
	char copy[LEDGER_LINE_MAX];
	char *save = NULL;
	char *tok;
	char *eq;

	memset(r, 0, sizeof(*r));
	/* Lines from before signatures existed: unsigned. */
	str_copy(r->signature, sizeof(r->signature), "-");
	str_copy(r->signer, sizeof(r->signer), "-");
	if (!str_copy(copy, sizeof(copy), line))
		return false;
	copy[strcspn(copy, "\n")] = '\0';
	for (tok = strtok_r(copy, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL)
			return false;
		*eq = '\0';
		if (!set_field(r, tok, eq + 1))
			return false;
	}
	return r->when != 0 && r->op[0] != '\0' && r->user[0] != '\0' && r->file[0] != '\0';
}

bool ledger_signed(const struct ledger_record *r)
{
	return strcmp(r->signature, "-") != 0 && r->signature[0] != '\0' &&
	       strcmp(r->signer, "-") != 0 && r->signer[0] != '\0';
}

static int ledger_open_as(int dir_fd, const char *name, int flags, uid_t owner, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, owner, SF_ANY_GID, 027, 0 };

	return sf_openat(dir_fd, name, flags, &rule, NULL, e);
}

static int ledger_open(int dir_fd, const char *name, int flags, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, geteuid(), SF_ANY_GID, 027, 0 };

	return sf_openat(dir_fd, name, flags, &rule, NULL, e);
}

/* Whether fd's last line is line: an append redone after a crash is not doubled. */
static bool ends_with_line(int fd, const char *line)
{
	char tail[LEDGER_LINE_MAX + 1];
	size_t len = strlen(line);
	struct stat st;

	if (len > LEDGER_LINE_MAX || fstat(fd, &st) != 0 || (size_t)st.st_size < len)
		return false;
	if (pread(fd, tail, len + 1, st.st_size - (off_t)len - 1) != (ssize_t)len + 1) {
		/* the file is exactly the line */
		return (size_t)st.st_size == len && pread(fd, tail, len, 0) == (ssize_t)len &&
		       memcmp(tail, line, len) == 0;
	}
	return tail[0] == '\n' && memcmp(tail + 1, line, len) == 0;
}

int ledger_append_file(int dir_fd, const char *name, const char *line, bool once,
		       struct pst_err *e)
{
	int fd = ledger_open(dir_fd, name, O_RDWR | O_APPEND | O_CREAT, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = sf_lock(fd, true, e);
	if (rc == 0 && fchmod(fd, 0640) != 0)
		rc = pst_fail(e, errno, "%s: cannot set its mode: %s", name, strerror(errno));
	if (rc == 0 && once && ends_with_line(fd, line)) {
		close(fd);
		return 0;
	}
	if (rc == 0 && sf_write_full(fd, line, strlen(line)) < 0)
		rc = pst_fail(e, errno, "%s: cannot append: %s", name, strerror(errno));
	if (rc == 0 && fsync(fd) != 0)
		rc = pst_fail(e, errno, "%s: cannot sync: %s", name, strerror(errno));
	close(fd);
	return rc;
}

int ledger_append(int state_fd, const char *line, struct pst_err *e)
{
	return ledger_append_file(state_fd, LEDGER_NAME, line, false, e);
}

static int each_in_open(int fd, const char *name, ledger_visit_fn *fn, void *arg,
			struct pst_err *e);

int ledger_each_as(int state_fd, uid_t owner, ledger_visit_fn *fn, void *arg, struct pst_err *e)
{
	int fd = ledger_open_as(state_fd, LEDGER_NAME, O_RDONLY, owner, e);

	if (fd == -ENOENT)
		return 0;
	return fd < 0 ? fd : each_in_open(fd, LEDGER_NAME, fn, arg, e);
}

int ledger_each_file(int dir_fd, const char *name, ledger_visit_fn *fn, void *arg,
		     struct pst_err *e)
{
	int fd = ledger_open(dir_fd, name, O_RDONLY, e);

	if (fd == -ENOENT)
		return 0;
	return fd < 0 ? fd : each_in_open(fd, name, fn, arg, e);
}

static int each_in_open(int fd, const char *name, ledger_visit_fn *fn, void *arg,
			struct pst_err *e)
{
	struct ledger_record r;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = fdopen(fd, "r");


	if (f == NULL) {
		close(fd);
		return pst_fail(e, errno, "%s: cannot read: %s", name, strerror(errno));
	}
	/* A last line without its newline is an append still being written: not yet there. */
	while ((n = getline(&line, &cap, f)) > 0 && line[n - 1] == '\n') {
		if ((size_t)n < LEDGER_LINE_MAX && ledger_parse(line, &r) && !fn(&r, line, arg))
			break;
	}
	free(line);
	fclose(f);
	return 0;
}

int ledger_each(int state_fd, ledger_visit_fn *fn, void *arg, struct pst_err *e)
{
	return ledger_each_file(state_fd, LEDGER_NAME, fn, arg, e);
}
