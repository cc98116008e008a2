/*
 * Log, ledger and indexes recorded together (history.h).
 * MUST: hold log.lock for every write of any of them; never restart a
 * log; finish a pending record with its own entry before anything else.
 */
#define _GNU_SOURCE
#include "history.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "change_entry.h"
#include "index_build.h"
#include "log_entry.h"
#include "release_log.h"
#include "release_proof.h"
#include "safefile.h"
#include "text.h"
#include "tlog.h"

#define SIZE_NAME "log.size"
#define PENDING_NAME "log.pending"
#define CLOCK_NAME "clock"
#define SYNC_NAME "sync.pending"
#define PENDING_MAX (64 + LEDGER_LINE_MAX + LOG_ENTRY_TEXT_MAX)

struct pending {
	uint64_t size;                 /* the log's size before the entry */
	char line[LEDGER_LINE_MAX];    /* the ledger line, with its '\n' */
	char entry[LOG_ENTRY_TEXT_MAX];
	size_t entry_len;
};

static const struct sf_new own_file = { 0640, SF_ANY_UID, SF_ANY_GID };

static int lock_log(const struct installd *d, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, d->uid, SF_ANY_GID, 077, 0 };
	int fd = sf_openat(d->history_fd, "log.lock", O_RDWR | O_CREAT, &rule, NULL, e);

	if (fd >= 0 && sf_lock(fd, true, e) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

static int read_small(const struct installd *d, const char *name, size_t max, char **text,
		      size_t *len, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFREG, d->uid, SF_ANY_GID, 022, (off_t)max };
	int fd = sf_openat(d->history_fd, name, O_RDONLY, &rule, NULL, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = sf_read_all(fd, max, text, len, e);
	close(fd);
	return rc;
}

static bool parse_size(const char *s, uint64_t *n, const char **end)
{
	char *stop;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return false;
	errno = 0;
	*n = strtoull(s, &stop, 10);
	*end = stop;
	return errno == 0;
}

/* The number in <state>/history/<name>; *have false when the file is missing. */
static int read_number(const struct installd *d, const char *name, uint64_t *n, bool *have,
		       struct pst_err *e)
{
	const char *end;
	char *text = NULL;
	size_t len;
	int rc = read_small(d, name, 32, &text, &len, e);

	*n = 0;
	*have = rc == 0;
	if (rc == -ENOENT)
		return 0;
	if (rc == 0 && (!parse_size(text, n, &end) || strcmp(end, "\n") != 0))
		rc = pst_fail(e, EBADMSG, "<state>/history/%s is not one number: restore it "
			      "(RELEASES.md, \"The release log\")", name);
	free(text);
	return rc;
}

static int write_number(const struct installd *d, const char *name, uint64_t n, struct pst_err *e)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%" PRIu64 "\n", n);

	return sf_write_atomic(d->history_fd, name, text, (size_t)len, &own_file, e);
}

/* The log's size per <state>/history/log.size. */
static int read_size(const struct installd *d, uint64_t *n, bool *have, struct pst_err *e)
{
	return read_number(d, SIZE_NAME, n, have, e);
}

static int write_size(const struct installd *d, uint64_t n, struct pst_err *e)
{
	return write_number(d, SIZE_NAME, n, e);
}

/*
 * <state>/history/clock: the latest time the daemon has seen, raised to
 * now; *seen is what it held before. Under the lock. A clock set back
 * shows as now < *seen, and the file keeps the later time.
 */
static int raise_clock(const struct installd *d, time_t now, time_t *seen, struct pst_err *e)
{
	uint64_t was;
	bool have;
	int rc = read_number(d, CLOCK_NAME, &was, &have, e);

	*seen = rc == 0 && was <= (uint64_t)INT64_MAX ? (time_t)was : 0;
	if (rc == 0 && now > *seen)
		rc = write_number(d, CLOCK_NAME, (uint64_t)now, e);
	return rc;
}

int history_clock(const struct installd *d, time_t now, time_t *seen, struct pst_err *e)
{
	int fd = lock_log(d, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = raise_clock(d, now, seen, e);
	close(fd);
	return rc;
}

static int write_pending(const struct installd *d, const struct pending *p, struct pst_err *e)
{
	char text[PENDING_MAX];
	int len = snprintf(text, sizeof(text), "postern-pending 1\nsize %" PRIu64 "\n%s%.*s",
			   p->size, p->line, (int)p->entry_len, p->entry);

	if (len < 0 || (size_t)len >= sizeof(text))
		return pst_fail(e, E2BIG, "a change's record is too long");
	return sf_write_atomic(d->history_fd, PENDING_NAME, text, (size_t)len, &own_file, e);
}

static int parse_pending(const char *text, size_t len, struct pending *p, struct pst_err *e)
{
	const char *s = text, *end, *nl;

	if (strncmp(s, "postern-pending 1\nsize ", 23) != 0 || !parse_size(s + 23, &p->size, &end) ||
	    *end != '\n' || (nl = strchr(end + 1, '\n')) == NULL ||
	    (size_t)(nl + 1 - (end + 1)) >= sizeof(p->line) ||
	    (size_t)(text + len - (nl + 1)) >= sizeof(p->entry))
		return pst_fail(e, EBADMSG, "<state>/history/" PENDING_NAME " is damaged: see RELEASES.md, "
				"\"The release log\"");
	memcpy(p->line, end + 1, (size_t)(nl + 1 - (end + 1)));
	p->line[nl + 1 - (end + 1)] = '\0';
	p->entry_len = (size_t)(text + len - (nl + 1));
	memcpy(p->entry, nl + 1, p->entry_len);
	return 0;
}

static int read_pending(const struct installd *d, struct pending *p, struct pst_err *e)
{
	char *text = NULL;
	size_t len;
	int rc = read_small(d, PENDING_NAME, PENDING_MAX, &text, &len, e);

	if (rc == 0)
		rc = parse_pending(text, len, p, e);
	free(text);
	return rc;
}

static int clear_pending(const struct installd *d, struct pst_err *e)
{
	if (unlinkat(d->history_fd, PENDING_NAME, 0) != 0 && errno != ENOENT)
		return pst_fail(e, errno, "<state>/history/" PENDING_NAME ": cannot remove: %s", strerror(errno));
	if (fsync(d->history_fd) != 0)
		return pst_fail(e, errno, "<state>/history: cannot sync: %s", strerror(errno));
	return 0;
}

/* <state>/index/<kind>, or -ENOENT while the index has not been built. */
static int open_index(const struct installd *d, const char *kind, struct pst_err *e)
{
	const struct sf_rule rule = { S_IFDIR, d->uid, SF_ANY_GID, 027, 0 };
	int top = sf_openat(d->history_fd, "index", O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	int fd;

	if (top < 0)
		return top;
	fd = sf_openat(top, kind, O_RDONLY | O_DIRECTORY, &rule, NULL, e);
	close(top);
	return fd;
}

static int index_append(const struct installd *d, const char *kind, const char *name,
			const char *line, struct pst_err *e)
{
	int fd = open_index(d, kind, e);
	int rc;

	if (fd == -ENOENT)
		return 0;      /* built from the ledger at the next start, this line with it */
	if (fd < 0)
		return fd;
	rc = sf_is_component(name) ? ledger_append_file(fd, name, line, true, e)
		: pst_fail(e, EINVAL, "%s: not a name an index can hold", name);
	close(fd);
	return rc;
}

/* The server's side of a record whose entry is in the log (each step redone safely). */
static int finish(const struct installd *d, const struct pending *p, struct pst_err *e)
{
	struct ledger_record r;
	int rc;

	if (!ledger_parse(p->line, &r))
		return pst_fail(e, EBADMSG, "<state>/history/" PENDING_NAME " holds no ledger line");
	rc = strcmp(r.op, "install") == 0
		? release_proof_write(d, &r, p->size, p->entry, p->entry_len, e) : 0;
	if (rc == 0)
		rc = ledger_append_file(d->state_fd, "ledger", p->line, true, e);
	if (rc == 0)
		rc = index_append(d, "module", r.module, p->line, e);
	if (rc == 0)
		rc = index_append(d, "user", r.user, p->line, e);
	/* The tree changed: mirrors are told, even if the daemon stops first. */
	if (rc == 0)
		rc = sf_write_atomic(d->history_fd, SYNC_NAME, "1\n", 2, &own_file, e);
	if (rc == 0)
		rc = write_size(d, p->size + 1, e);
	return rc == 0 ? clear_pending(d, e) : rc;
}

static int disagree(uint64_t log_size, uint64_t state_size, struct pst_err *e)
{
	return pst_fail(e, EBADMSG, "the release log has %" PRIu64 " entries but <state>/"
			SIZE_NAME " says %" PRIu64 ": the log and the state disagree, so nothing "
			"changes; see RELEASES.md, \"The release log\"", log_size, state_size);
}

/* The log's size, checked against log.size (a log with entries and no log.size is refused). */
static int agreed_size(const struct installd *d, uint64_t *size, struct pst_err *e)
{
	uint64_t log_size;
	bool have;
	int rc = read_size(d, size, &have, e);

	if (rc == 0)
		rc = release_log_size(d->tree_fd, &log_size, e);
	if (rc == 0 && log_size != *size)
		rc = disagree(log_size, *size, e);
	return rc;
}

/* Append p's entry unless the log already ends with it, then finish. */
static int complete(const struct installd *d, const struct pending *p, struct pst_err *e)
{
	struct tlog_entry entry = { p->entry, p->entry_len };
	struct tlog_hash want, have;
	uint64_t log_size;
	int rc = release_log_size(d->tree_fd, &log_size, e);

	if (rc < 0)
		return rc;
	if (log_size == p->size + 1) {
		tlog_leaf_hash(p->entry, p->entry_len, &want);
		rc = release_log_leaf(d->tree_fd, log_size, p->size, &have, e);
		if (rc == 0 && !tlog_hash_equal(&want, &have))
			rc = pst_fail(e, EBADMSG, "the release log's last entry is not the pending "
				      "one in <state>/history/" PENDING_NAME ": see RELEASES.md");
	} else if (log_size == p->size) {
		rc = release_log_append(d->tree_fd, d->log_socket, p->size, &entry, 1, e);
	} else {
		rc = disagree(log_size, p->size, e);
	}
	return rc < 0 ? rc : finish(d, p, e);
}

/* Called with the lock held: a record a crash interrupted is finished. */
static int resolve_pending(const struct installd *d, struct pst_err *e)
{
	struct pending p;
	uint64_t size;
	bool have;
	int rc = read_pending(d, &p, e);

	if (rc == -ENOENT)
		return 0;
	if (rc == 0)
		rc = read_size(d, &size, &have, e);
	/* size + 1: killed after log.size was written, before the pending record went. */
	if (rc == 0 && size != p.size && size != p.size + 1)
		rc = disagree(p.size, size, e);
	if (rc == 0) {
		syslog(LOG_WARNING, "finishing the interrupted record of a change (log entry %" PRIu64 ")",
		       p.size);
		rc = release_log_drop_temps(d->tree_fd, e);
	}
	if (rc == 0)
		rc = complete(d, &p, e);
	return rc;
}

/* The log's lock, held with no record left pending; the fd, or -errno. */
static int lock_resolved(const struct installd *d, struct pst_err *e)
{
	int fd = lock_log(d, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = resolve_pending(d, e);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int history_record(const struct installd *d, const struct ledger_record *r, const char *line,
		   struct pst_err *e)
{
	struct pending p;
	time_t seen;
	int rc, fd;

	if (!str_copy(p.line, sizeof(p.line), line))
		return pst_fail(e, E2BIG, "the ledger line is too long");
	rc = change_entry_text(d, r, p.entry, sizeof(p.entry), e);
	if (rc < 0)
		return rc;
	p.entry_len = (size_t)rc;
	fd = lock_resolved(d, e);
	if (fd < 0)
		return fd;
	rc = raise_clock(d, time(NULL), &seen, e);
	if (rc == 0)
		rc = agreed_size(d, &p.size, e);
	if (rc == 0)
		rc = write_pending(d, &p, e);
	if (rc == 0)
		rc = complete(d, &p, e);
	close(fd);
	return rc;
}

struct line_search {
	const char *line;
	bool found;
};

static bool match_line(const struct ledger_record *r, const char *line, void *arg)
{
	struct line_search *s = arg;

	(void)r;
	s->found = s->found || strcmp(line, s->line) == 0;
	return !s->found;
}

int history_recorded(const struct installd *d, const char *module, const char *line,
		     bool *recorded, struct pst_err *e)
{
	struct line_search s = { line, false };
	int fd = lock_resolved(d, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = history_each_module(d, module, match_line, &s, e);
	close(fd);
	*recorded = s.found;
	return rc;
}

int history_ready(const struct installd *d, struct pst_err *e)
{
	uint64_t size;
	int fd = lock_resolved(d, e);
	int rc;

	if (fd < 0)
		return fd;
	rc = agreed_size(d, &size, e);
	close(fd);
	return rc < 0 ? rc : release_log_signer_ready(d->log_socket, e);
}

static int each_in(const struct installd *d, const char *kind, const char *name,
		   ledger_visit_fn *fn, void *arg, struct pst_err *e)
{
	int fd = open_index(d, kind, e);
	int rc;

	if (fd < 0)
		return fd == -ENOENT ? pst_fail(e, ENOENT, "<state>/history/index/%s is missing: restart "
						"postern-installd to rebuild it from the ledger", kind)
				     : fd;
	rc = sf_is_component(name) ? ledger_each_file(fd, name, fn, arg, e)
		: pst_fail(e, EINVAL, "%s: not a name an index holds", name);
	close(fd);
	return rc;
}

int history_each_module(const struct installd *d, const char *module, ledger_visit_fn *fn,
			void *arg, struct pst_err *e)
{
	return each_in(d, "module", module, fn, arg, e);
}

int history_each_user(const struct installd *d, const char *user, ledger_visit_fn *fn,
		      void *arg, struct pst_err *e)
{
	return each_in(d, "user", user, fn, arg, e);
}

int history_open(const struct installd *d, struct pst_err *e)
{
	uint64_t size;
	time_t seen;
	int fd = lock_log(d, e);
	int rc, idx;

	if (fd < 0)
		return fd;
	rc = release_log_drop_temps(d->tree_fd, e);
	if (rc == 0)
		rc = resolve_pending(d, e);
	idx = rc < 0 ? -1 : open_index(d, "module", e);
	if (idx == -ENOENT)
		rc = index_build(d->state_fd, d->history_fd, e);
	else if (idx < 0 && rc == 0)
		rc = idx;
	if (idx >= 0)
		close(idx);
	if (rc == 0)
		rc = agreed_size(d, &size, e);
	if (rc == 0)
		rc = raise_clock(d, time(NULL), &seen, e);
	close(fd);
	return rc;
}

bool history_sync_pending(const struct installd *d)
{
	return faccessat(d->history_fd, SYNC_NAME, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

int history_sync_taken(const struct installd *d, struct pst_err *e)
{
	int fd = lock_log(d, e);
	int rc = 0;

	if (fd < 0)
		return fd;
	if (unlinkat(d->history_fd, SYNC_NAME, 0) != 0 && errno != ENOENT)
		rc = pst_fail(e, errno, "<state>/history/" SYNC_NAME ": cannot remove: %s",
			      strerror(errno));
	if (rc == 0 && fsync(d->history_fd) != 0)
		rc = pst_fail(e, errno, "<state>/history: cannot sync: %s", strerror(errno));
	close(fd);
	return rc;
}
