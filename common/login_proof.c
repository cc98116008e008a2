/*
 * Login proofs (login_proof.h): written by pam_postern, checked by
 * postern-shell. The threat model is in docs/ARCHITECTURE.md, "Proof that
 * the second factor ran".
 */
#define _GNU_SOURCE
#include "login_proof.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "safefile.h"
#include "text.h"

#define PROOF_MAGIC "postern-login-proof 1\n"
#define PROC_STAT_MAX 1024

const char *login_proof_verdict_name(enum login_proof_verdict v)
{
	switch (v) {
	case LOGIN_PROOF_VALID: return "valid";
	case LOGIN_PROOF_MISSING: return "missing";
	case LOGIN_PROOF_MISMATCH: return "mismatch";
	case LOGIN_PROOF_EXPIRED: return "expired";
	case LOGIN_PROOF_UNSAFE: return "unsafe";
	case LOGIN_PROOF_ERROR: break;
	}
	return "error";
}

/* Say why in why (may be NULL) and answer v. */
static enum login_proof_verdict verdict(enum login_proof_verdict v, struct pst_err *why,
					const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static enum login_proof_verdict verdict(enum login_proof_verdict v, struct pst_err *why,
					const char *fmt, ...)
{
	va_list ap;

	if (why != NULL) {
		va_start(ap, fmt);
		vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
		va_end(ap);
	}
	return v;
}

/* A decimal number of at most max, no sign, no leading zero but "0". */
static bool parse_decimal(const char *s, size_t n, unsigned long long max,
			  unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (n == 0 || n > 20 || (n > 1 && s[0] == '0'))
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (v > (max - (unsigned long long)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* Field n (1-based, n >= 3) of a stat line; the text after the last ')'
 * starts with " " and field 3. */
static bool stat_field(const char *rest, const char *end, int n, unsigned long long max,
		       unsigned long long *out)
{
	const char *p = rest;
	const char *f;
	int i;

	for (i = 3; i <= n; i++) {
		if (p >= end || *p != ' ')
			return false;
		f = ++p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (i == n)
			return parse_decimal(f, (size_t)(p - f), max, out);
	}
	return false;
}

int proc_stat_parse(const char *buf, size_t len, pid_t *ppid,
		    unsigned long long *start, struct pst_err *e)
{
	const char *end = buf + len;
	const char *close_paren = NULL;
	unsigned long long parent;
	const char *p;

	for (p = buf; p < end; p++)
		if (*p == ')')
			close_paren = p;
	if (close_paren == NULL || memchr(buf, '(', len) == NULL)
		return pst_fail(e, EINVAL, "/proc stat line has no command name");
	if (!stat_field(close_paren + 1, end, 4, INT_MAX, &parent) ||
	    !stat_field(close_paren + 1, end, 22, ULLONG_MAX, start))
		return pst_fail(e, EINVAL, "/proc stat line is not in the expected form");
	*ppid = (pid_t)parent;
	return 0;
}

int proc_stat_read(pid_t pid, pid_t *ppid, unsigned long long *start, struct pst_err *e)
{
	char path[40];
	char buf[PROC_STAT_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return pst_fail(e, errno, "%s: cannot read: %s", path, strerror(errno));
	return proc_stat_parse(buf, (size_t)n, ppid, start, e);
}

static bool boot_id_valid(const char *s, size_t n)
{
	size_t i;

	if (n != LOGIN_PROOF_BOOT_ID_LEN)
		return false;
	for (i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (dash ? s[i] != '-' : !hex)
			return false;
	}
	return true;
}

int boot_id_read(char out[LOGIN_PROOF_BOOT_ID_LEN + 1], struct pst_err *e)
{
	static const char path[] = "/proc/sys/kernel/random/boot_id";
	char buf[64];
	ssize_t n;
	int fd;

	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < LOGIN_PROOF_BOOT_ID_LEN || !boot_id_valid(buf, LOGIN_PROOF_BOOT_ID_LEN))
		return pst_fail(e, EINVAL, "%s: not a boot id", path);
	memcpy(out, buf, LOGIN_PROOF_BOOT_ID_LEN);
	out[LOGIN_PROOF_BOOT_ID_LEN] = '\0';
	return 0;
}

/* Seconds since boot, or a negative errno. One return value, so that no
 * caller can read a time that was never set. */
static long long boottime_now(struct pst_err *e)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0) {
		int err = errno != 0 ? errno : EIO;
		pst_fail(e, err, "CLOCK_BOOTTIME: %s", strerror(err));
		return -(long long)err;
	}
	return (long long)ts.tv_sec;
}

/* SSH_CONNECTION as sshd writes it: four words of address or port characters. */
static bool connection_valid(const char *s, size_t n)
{
	size_t i;
	int words = 1;

	if (n == 0 || n >= LOGIN_PROOF_CONNECTION_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++) {
		bool alnum = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
			     (s[i] >= 'A' && s[i] <= 'Z');

		if (s[i] == ' ' && s[i - 1] != ' ')
			words++;
		else if (!alnum && (s[i] == '\0' || !strchr(".:%_-", s[i])))
			return false;
	}
	return words == 4;
}

static bool method_valid(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= LOGIN_PROOF_METHOD_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '-'))
			return false;
	return true;
}

int login_proof_format(const struct login_proof *p, char *out, size_t outlen)
{
	int n;

	n = snprintf(out, outlen,
		     PROOF_MAGIC "uid=%lu\nuser=%s\nconnection=%s\nmonitor=%ld\nmonitor_start=%llu\n"
		     "boot_id=%s\nexpires=%lld\nmethod=%s\n",
		     (unsigned long)p->uid, p->user, p->connection, (long)p->monitor,
		     p->monitor_start, p->boot_id, p->expires, p->method);
	if (n < 0 || (size_t)n >= outlen || n > LOGIN_PROOF_MAX)
		return -ENOSPC;
	return n;
}

/* The value of line "key=..." at *pos, which must be next; advances *pos. */
static bool next_value(const char *buf, size_t len, size_t *pos, const char *key,
		       const char **val, size_t *vlen)
{
	size_t klen = strlen(key);
	const char *nl;

	if (len - *pos <= klen || memcmp(buf + *pos, key, klen) != 0 || buf[*pos + klen] != '=')
		return false;
	*val = buf + *pos + klen + 1;
	nl = memchr(*val, '\n', len - (*pos + klen + 1));
	if (nl == NULL)
		return false;
	*vlen = (size_t)(nl - *val);
	*pos = (size_t)(nl - buf) + 1;
	return true;
}

static bool copy_word(char *dst, size_t dstlen, const char *v, size_t n)
{
	if (n >= dstlen || memchr(v, '\0', n) != NULL)
		return false;
	memcpy(dst, v, n);
	dst[n] = '\0';
	return true;
}

static bool parse_fields(const char *buf, size_t len, size_t pos, struct login_proof *p)
{
	unsigned long long num;
	const char *v;
	size_t n;

	if (!next_value(buf, len, &pos, "uid", &v, &n) || !parse_decimal(v, n, UINT_MAX - 1, &num))
		return false;
	p->uid = (uid_t)num;
	if (!next_value(buf, len, &pos, "user", &v, &n) ||
	    !copy_word(p->user, sizeof(p->user), v, n) || !name_is_user(p->user))
		return false;
	if (!next_value(buf, len, &pos, "connection", &v, &n) || !connection_valid(v, n) ||
	    !copy_word(p->connection, sizeof(p->connection), v, n))
		return false;
	if (!next_value(buf, len, &pos, "monitor", &v, &n) ||
	    !parse_decimal(v, n, INT_MAX, &num) || num < 2)
		return false;
	p->monitor = (pid_t)num;
	if (!next_value(buf, len, &pos, "monitor_start", &v, &n) ||
	    !parse_decimal(v, n, ULLONG_MAX, &p->monitor_start))
		return false;
	if (!next_value(buf, len, &pos, "boot_id", &v, &n) || !boot_id_valid(v, n) ||
	    !copy_word(p->boot_id, sizeof(p->boot_id), v, n))
		return false;
	if (!next_value(buf, len, &pos, "expires", &v, &n) || !parse_decimal(v, n, LLONG_MAX, &num))
		return false;
	p->expires = (long long)num;
	if (!next_value(buf, len, &pos, "method", &v, &n) || !method_valid(v, n) ||
	    !copy_word(p->method, sizeof(p->method), v, n))
		return false;
	return pos == len;
}

int login_proof_parse(const char *buf, size_t len, struct login_proof *p, struct pst_err *e)
{
	const size_t magic = sizeof(PROOF_MAGIC) - 1;

	memset(p, 0, sizeof(*p));
	if (len > LOGIN_PROOF_MAX || len < magic || memcmp(buf, PROOF_MAGIC, magic) != 0)
		return pst_fail(e, EINVAL, "not a postern login proof (version 1)");
	if (!parse_fields(buf, len, magic, p)) {
		memset(p, 0, sizeof(*p));
		return pst_fail(e, EINVAL, "the login proof is malformed");
	}
	return 0;
}

int login_proof_fill(struct login_proof *p, uid_t uid, const char *user,
		     const char *connection, pid_t monitor, unsigned lifetime,
		     const char *method, struct pst_err *e)
{
	pid_t parent;
	long long now;
	int rc;

	memset(p, 0, sizeof(*p));
	if (connection == NULL || !connection_valid(connection, strlen(connection)))
		return pst_fail(e, EINVAL, "SSH_CONNECTION is missing or malformed");
	if (!name_is_user(user) || !str_copy(p->user, sizeof(p->user), user) ||
	    !str_copy(p->connection, sizeof(p->connection), connection) ||
	    !method_valid(method, strlen(method)) || !str_copy(p->method, sizeof(p->method), method) ||
	    lifetime > LOGIN_PROOF_LIFETIME_MAX || monitor < 2)
		return pst_fail(e, EINVAL, "invalid login proof fields");
	p->uid = uid;
	p->monitor = monitor;
	rc = proc_stat_read(monitor, &parent, &p->monitor_start, e);
	if (rc == 0)
		rc = boot_id_read(p->boot_id, e);
	if (rc < 0)
		return rc;
	now = boottime_now(e);
	if (now < 0)
		return (int)now;
	p->expires = now + (long long)lifetime;
	return 0;
}

/* DIR, root's and closed to writers but root, created 0711 if missing. */
static int proof_dir_create(const char *dir, struct pst_err *e)
{
	const struct sf_rule rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	char parent[PATH_MAX];
	const char *slash = strrchr(dir, '/');
	int pfd;
	int fd;

	if (dir[0] != '/' || slash == NULL || !sf_is_component(slash + 1) ||
	    (size_t)(slash - dir) >= sizeof(parent))
		return pst_fail(e, EINVAL, "%s: the login proof directory must be an absolute path below /", dir);
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash == dir ? 1 : slash - dir] = '\0';
	if (slash == dir)
		parent[0] = '/';
	pfd = sf_open_dir_path(parent, &rule, SF_TRUSTED_PATH, e);
	if (pfd < 0)
		return pfd;
	if (mkdirat(pfd, slash + 1, 0711) != 0 && errno != EEXIST) {
		fd = pst_fail(e, errno, "%s: cannot create: %s", dir, strerror(errno));
		close(pfd);
		return fd;
	}
	fd = sf_openat(pfd, slash + 1, O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	close(pfd);
	return fd;
}

static bool proof_name(char *name, size_t len, pid_t monitor)
{
	int n = snprintf(name, len, "%ld", (long)monitor);

	return n > 0 && (size_t)n < len;
}

/* "PID", or "PID.START" + LOGIN_HANDOFF_SUFFIX: the names this directory holds. */
static bool proof_or_handoff(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t n, suffix = strlen(LOGIN_HANDOFF_SUFFIX);
	unsigned long long start;

	if (dot == NULL)
		return true;
	n = strlen(dot + 1);
	return n > suffix && strcmp(dot + 1 + n - suffix, LOGIN_HANDOFF_SUFFIX) == 0 &&
	       parse_decimal(dot + 1, n - suffix, ULLONG_MAX, &start);
}

/*
 * Records are named by pid (handoffs by pid and LOGIN_HANDOFF_SUFFIX), so
 * there are never more than twice as many as there are pids; those whose
 * process is gone are removed here, which keeps the directory
 * at about the number of open connections. getdents64 on the stack: this
 * runs in sshd's PAM child, where a heap buffer costs page faults.
 */
static void sweep_gone(int dirfd)
{
	char buf[4096] __attribute__((aligned(8)));
	unsigned long long pid;
	ssize_t n;
	ssize_t off;

	while ((n = getdents64(dirfd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(void *)(buf + off);

			off += d->d_reclen;
			if (!parse_decimal(d->d_name, strcspn(d->d_name, "."), INT_MAX, &pid) ||
			    pid < 2 || !proof_or_handoff(d->d_name))
				continue;
			if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
				unlinkat(dirfd, d->d_name, 0);
		}
	}
}

int login_proof_write(const char *dir, const struct login_proof *p, struct pst_err *e)
{
	const struct sf_new how = { .mode = 0644, .uid = 0, .gid = 0 };
	char text[LOGIN_PROOF_MAX + 1];
	char name[24];
	int len;
	int fd;
	int rc;

	len = login_proof_format(p, text, sizeof(text));
	if (len < 0 || !proof_name(name, sizeof(name), p->monitor))
		return pst_fail(e, EINVAL, "the login proof does not fit in %d bytes", LOGIN_PROOF_MAX);
	fd = proof_dir_create(dir, e);
	if (fd < 0)
		return fd;
	rc = sf_write_atomic(fd, name, text, (size_t)len, &how, e);
	if (rc == 0)
		sweep_gone(fd);
	close(fd);
	if (rc < 0)
		pst_err_prefix(e, "%s", dir);
	return rc;
}

/* Open and read DIR/<monitor>: root's, not writable by others, small. */
static enum login_proof_verdict proof_read(const char *dir, pid_t monitor, char *buf,
					   size_t buflen, size_t *len, struct pst_err *why)
{
	const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	const struct sf_rule file_rule = {
		.type = S_IFREG, .uid = 0, .gid = SF_ANY_GID, .forbid = 022,
		.max_size = LOGIN_PROOF_MAX,
	};
	struct pst_err e = { "" };
	char name[24];
	ssize_t n;
	int dirfd;
	int fd;

	dirfd = sf_open_dir_path(dir, &dir_rule, SF_TRUSTED_PATH | SF_PATH_ONLY, &e);
	if (dirfd == -ENOENT)
		return verdict(LOGIN_PROOF_MISSING, why, "no login proofs directory %s", dir);
	if (dirfd < 0)
		return verdict(LOGIN_PROOF_UNSAFE, why, "the login proofs directory is not safe to trust: %s", e.msg);
	proof_name(name, sizeof(name), monitor);
	fd = sf_openat(dirfd, name, O_RDONLY, &file_rule, NULL, &e);
	close(dirfd);
	if (fd == -ENOENT)
		return verdict(LOGIN_PROOF_MISSING, why, "no login proof in %s for this connection's sshd process %ld",
				  dir, (long)monitor);
	if (fd < 0)
		return verdict(LOGIN_PROOF_UNSAFE, why, "the login proof is not safe to trust: %s", e.msg);
	n = read(fd, buf, buflen);
	close(fd);
	if (n < 0)
		return verdict(LOGIN_PROOF_ERROR, why, "cannot read the login proof %s/%s: %s", dir, name,
				  strerror(errno));
	*len = (size_t)n;
	return LOGIN_PROOF_VALID;
}

/* Every field of the record against what this process sees itself. */
static enum login_proof_verdict proof_compare(const struct login_proof *p, pid_t monitor,
					      uid_t uid, const char *connection,
					      struct pst_err *why)
{
	char boot[LOGIN_PROOF_BOOT_ID_LEN + 1];
	unsigned long long start;
	struct pst_err e = { "" };
	long long now;
	pid_t parent;

	if (proc_stat_read(monitor, &parent, &start, &e) < 0 || boot_id_read(boot, &e) < 0 ||
	    (now = boottime_now(&e)) < 0)
		return verdict(LOGIN_PROOF_ERROR, why, "cannot check the login proof: %s", e.msg);
	if (p->monitor != monitor || p->monitor_start != start)
		return verdict(LOGIN_PROOF_MISMATCH, why, "the login proof is of an earlier sshd process with the same pid %ld",
				  (long)monitor);
	if (strcmp(p->boot_id, boot) != 0)
		return verdict(LOGIN_PROOF_MISMATCH, why, "the login proof is from another boot");
	if (p->uid != uid)
		return verdict(LOGIN_PROOF_MISMATCH, why, "the login proof is for uid %lu, not yours (%lu)",
				  (unsigned long)p->uid, (unsigned long)uid);
	if (strcmp(p->connection, connection) != 0)
		return verdict(LOGIN_PROOF_MISMATCH, why, "the login proof is for another connection");
	if (now >= p->expires)
		return verdict(LOGIN_PROOF_EXPIRED, why, "the login proof expired %lld s ago", now - p->expires);
	return LOGIN_PROOF_VALID;
}

static enum login_proof_verdict check_monitor(const char *dir, pid_t monitor, uid_t uid,
					      const char *connection, struct login_proof *out,
					      struct pst_err *why)
{
	char buf[LOGIN_PROOF_MAX + 1];
	struct login_proof local;
	struct login_proof *p = out != NULL ? out : &local;
	struct pst_err e = { "" };
	enum login_proof_verdict v;
	size_t len = 0;

	v = proof_read(dir, monitor, buf, sizeof(buf), &len, why);
	if (v != LOGIN_PROOF_VALID)
		return v;
	if (login_proof_parse(buf, len, p, &e) < 0)
		return verdict(LOGIN_PROOF_MISMATCH, why, "the login proof %s/%ld: %s", dir, (long)monitor, e.msg);
	return proof_compare(p, monitor, uid, connection, why);
}

/* The executable process pid runs, resolved: into out, or false. */
static bool process_exe(pid_t pid, char *out, size_t outlen)
{
	char link[40];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%ld/exe", (long)pid);
	n = readlink(link, out, outlen - 1);
	if (n <= 0)
		return false;
	out[n] = '\0';
	return true;
}

/*
 * sshd runs a ForceCommand as "LOGIN_SHELL -c COMMAND", and a shell may fork
 * the command instead of replacing itself: then the account's login shell
 * (not this program) stands between us and sshd's session process.
 */
static bool parent_is_login_shell(pid_t parent, const char *login_shell)
{
	char shell[PATH_MAX];
	char self[PATH_MAX];
	char exe[PATH_MAX];

	if (login_shell == NULL || realpath(login_shell, shell) == NULL ||
	    !process_exe(getpid(), self, sizeof(self)) || strcmp(shell, self) == 0)
		return false;
	return process_exe(parent, exe, sizeof(exe)) && strcmp(shell, exe) == 0;
}

enum login_proof_verdict login_proof_check(const char *dir, uid_t uid, const char *connection,
					   const char *login_shell, struct login_proof *out,
					   struct pst_err *why)
{
	unsigned long long start;
	struct pst_err e = { "" };
	pid_t parent = getppid();
	pid_t monitor;

	if (connection == NULL || !connection_valid(connection, strlen(connection)))
		return verdict(LOGIN_PROOF_ERROR, why, "SSH_CONNECTION is not set: this is not an ssh login");
	/* The shell's parent is sshd's unprivileged session process; its
	 * parent is the monitor that ran PAM. */
	if (parent_is_login_shell(parent, login_shell) &&
	    proc_stat_read(parent, &parent, &start, &e) < 0)
		return verdict(LOGIN_PROOF_ERROR, why, "cannot find this connection's sshd process: %s", e.msg);
	if (proc_stat_read(parent, &monitor, &start, &e) < 0)
		return verdict(LOGIN_PROOF_ERROR, why, "cannot find this connection's sshd process: %s", e.msg);
	if (monitor < 2)
		return verdict(LOGIN_PROOF_MISSING, why, "this process was not started by an sshd session");
	return check_monitor(dir, monitor, uid, connection, out, why);
}

/*
 * DIR/<monitor pid>.<its start time>.enrol: a file left for an earlier
 * process with the same pid (its sweep waits for the pid to be free) is
 * never read as this one's.
 */
static bool handoff_name(char *name, size_t len, pid_t monitor, unsigned long long start)
{
	int n = snprintf(name, len, "%ld.%llu" LOGIN_HANDOFF_SUFFIX, (long)monitor, start);

	return n > 0 && (size_t)n < len;
}

int login_handoff_write(const char *dir, pid_t monitor, uid_t uid, const char *text,
			size_t len, struct pst_err *e)
{
	const struct sf_new how = { .mode = 0400, .uid = uid, .gid = 0 };
	unsigned long long start;
	char name[48];
	pid_t parent;
	int fd;
	int rc;

	if (proc_stat_read(monitor, &parent, &start, e) < 0)
		return -ESRCH;
	if (len > LOGIN_HANDOFF_MAX || !handoff_name(name, sizeof(name), monitor, start))
		return pst_fail(e, EINVAL, "the enrolment handoff does not fit in %d bytes",
				LOGIN_HANDOFF_MAX);
	fd = proof_dir_create(dir, e);
	if (fd < 0)
		return fd;
	rc = sf_write_atomic(fd, name, text, len, &how, e);
	close(fd);
	if (rc < 0)
		pst_err_prefix(e, "%s", dir);
	return rc;
}

int login_handoff_read(const char *dir, const struct login_proof *p, uid_t uid, char *buf,
		       size_t buflen, size_t *len, struct pst_err *e)
{
	const struct sf_rule dir_rule = {
		.type = S_IFDIR, .uid = 0, .gid = SF_ANY_GID, .forbid = 022, .max_size = 0,
	};
	const struct sf_rule file_rule = {
		.type = S_IFREG, .uid = uid, .gid = SF_ANY_GID, .forbid = 077,
		.max_size = LOGIN_HANDOFF_MAX,
	};
	char name[48];
	ssize_t n;
	int dirfd;
	int fd;

	if (!handoff_name(name, sizeof(name), p->monitor, p->monitor_start))
		return pst_fail(e, EINVAL, "bad sshd process id %ld", (long)p->monitor);
	dirfd = sf_open_dir_path(dir, &dir_rule, SF_TRUSTED_PATH | SF_PATH_ONLY, e);
	if (dirfd < 0)
		return dirfd;
	fd = sf_openat(dirfd, name, O_RDONLY, &file_rule, NULL, e);
	close(dirfd);
	if (fd < 0)
		return fd;
	n = read(fd, buf, buflen);
	close(fd);
	if (n < 0)
		return pst_fail(e, errno, "%s/%s: cannot read: %s", dir, name, strerror(errno));
	*len = (size_t)n;
	return 0;
}
