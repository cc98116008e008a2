/*
 * sshd's refusals as records (sshd_log.h). It MUST only split the sentences
 * it knows, exactly; anything else is not a record. Nothing here decides
 * whether to believe a line: trail.c does.
 */
#include "sshd_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define SSHD_MSG_MAX 2048

/* The rest of s after prefix, or NULL. */
static char *after(char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool strip_suffix(char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	if (n < k || strcmp(s + n - k, suffix) != 0)
		return false;
	s[n - k] = '\0';
	return true;
}

static bool all_of(const char *s, size_t n, const char *allowed, size_t max)
{
	size_t i;

	if (n == 0 || n > max)
		return false;
	for (i = 0; i < n; i++) {
		if (strchr(allowed, s[i]) == NULL)
			return false;
	}
	return true;
}

/* Exactly "ADDR port PORT". */
static bool addr_port(const char *s, char from[64], char port[8])
{
	static const char addr_chars[] = "0123456789abcdefABCDEF.:%";
	const char *sp = strstr(s, " port ");
	size_t alen;

	if (sp == NULL)
		return false;
	alen = (size_t)(sp - s);
	sp += strlen(" port ");
	if (!all_of(s, alen, addr_chars, 63) || !all_of(sp, strlen(sp), "0123456789", 5))
		return false;
	memcpy(from, s, alen);
	from[alen] = '\0';
	return str_copy(port, 8, sp);
}

/* "HEAD ADDR port PORT": HEAD (cut at its end in s) and the address. */
static char *head_and_addr_port(char *s, char from[64], char port[8])
{
	char *p = strstr(s, " port ");
	char *last = NULL;
	char *sp;

	for (; p != NULL; p = strstr(p + 1, " port "))
		last = p;
	if (last == NULL)
		return NULL;
	*last = '\0';
	sp = strrchr(s, ' ');
	*last = ' ';
	if (sp == NULL || !addr_port(sp + 1, from, port))
		return NULL;
	*sp = '\0';
	return s;
}

/* "HEAD from ADDR port PORT" or "HEAD from ADDR": the last " from ". */
static char *head_from(char *s, char from[64], char port[8], bool with_port)
{
	char *p, *last = NULL;

	for (p = strstr(s, " from "); p != NULL; p = strstr(p + 1, " from "))
		last = p;
	if (last == NULL)
		return NULL;
	if (with_port ? !addr_port(last + 6, from, port)
		      : !all_of(last + 6, strlen(last + 6), "0123456789abcdefABCDEF.:%", 63))
		return NULL;
	if (!with_port) {
		str_copy(from, 64, last + 6);
		str_copy(port, 8, "-");
	}
	*last = '\0';
	return s;
}

static void add(struct sshd_event *ev, const char *key, const char *value)
{
	if (ev->nextra >= SSHD_EXTRA_MAX)
		return;
	ev->extra_key[ev->nextra] = key;
	str_copy(ev->extra_value[ev->nextra], SSHD_TEXT_MAX, value);
	ev->nextra++;
}

static struct sshd_session *session_find(struct sshd_sessions *ss, const char *host, long pid)
{
	size_t i;

	for (i = 0; ss != NULL && i < SSHD_SESSIONS_MAX; i++) {
		if (ss->s[i].used && ss->s[i].pid == pid && strcmp(ss->s[i].host, host) == 0)
			return &ss->s[i];
	}
	return NULL;
}

/*
 * A free entry, else the oldest of a connection not (yet) logged in, else
 * the oldest: the table never grows, whatever the log. Connections before
 * login are what scanners make by the thousand, and many end without a
 * line this file knows; a logged-in one may last for days and still log
 * a refused forward, so it is the last to give way.
 */
static struct sshd_session *session_slot(struct sshd_sessions *ss)
{
	struct sshd_session *oldest = NULL, *oldest_preauth = NULL, *s;
	size_t i;

	for (i = 0; i < SSHD_SESSIONS_MAX; i++) {
		s = &ss->s[i];
		if (!s->used)
			return s;
		if (oldest == NULL || s->seq < oldest->seq)
			oldest = s;
		if (!s->accepted && (oldest_preauth == NULL || s->seq < oldest_preauth->seq))
			oldest_preauth = s;
	}
	return oldest_preauth != NULL ? oldest_preauth : oldest;
}

/* The entry of pid, emptied: a new process, or the same pid reused. */
static struct sshd_session *session_new(struct sshd_sessions *ss, const char *host, long pid)
{
	struct sshd_session *s = session_find(ss, host, pid);

	if (s == NULL && ss != NULL)
		s = session_slot(ss);
	if (s != NULL) {
		memset(s, 0, sizeof(*s));
		s->used = true;
		s->pid = pid;
		s->seq = ++ss->seq;
		str_copy(s->host, sizeof(s->host), host);
	}
	return s;
}

/* The process has ended: so has its monitor's connection, for a user child. */
static void session_free(struct sshd_sessions *ss, const char *host, long pid)
{
	struct sshd_session *s = session_find(ss, host, pid);
	long parent;

	if (s == NULL)
		return;
	parent = s->parent;
	memset(s, 0, sizeof(*s));
	if (parent > 0 && (s = session_find(ss, host, parent)) != NULL)
		memset(s, 0, sizeof(*s));
}

/* The client of the sshd process pid, for lines that do not name it. */
static void who_from_session(struct sshd_sessions *ss, const char *host, long pid,
			     struct sshd_event *ev)
{
	struct sshd_session *s = session_find(ss, host, pid);

	if (s == NULL)
		return;
	/* A connection seen only by its first line has no user yet. */
	if (s->user[0] != '\0')
		str_copy(ev->user, sizeof(ev->user), s->user);
	if (s->from[0] != '\0') {
		str_copy(ev->from, sizeof(ev->from), s->from);
		str_copy(ev->port, sizeof(ev->port), s->port);
	}
}

/*
 * "Connection from A port P on L port LP", with ` rdomain "R"` where the
 * system has routing domains (Linux always, mostly ""): the first line of
 * a connection, at LogLevel VERBOSE. It starts the entry afresh, as the
 * pid may be one an earlier connection had.
 */
static void connection_start(struct sshd_sessions *ss, const char *host, long pid, char *rest)
{
	char from[64], port[8], laddr[64], lport[8];
	char *on = strstr(rest, " on "), *rd;
	struct sshd_session *s;

	if (on == NULL)
		return;
	*on = '\0';
	on += strlen(" on ");
	rd = strstr(on, " rdomain \"");
	if (rd != NULL && (strlen(rd) <= strlen(" rdomain \"") || !strip_suffix(rd, "\"")))
		return;
	if (rd != NULL)
		*rd = '\0';
	if (!addr_port(rest, from, port) || !addr_port(on, laddr, lport) ||
	    (s = session_new(ss, host, pid)) == NULL)
		return;
	str_copy(s->from, sizeof(s->from), from);
	str_copy(s->port, sizeof(s->port), port);
	s->lport = (unsigned)strtoul(lport, NULL, 10);
}

/* The entry for an authentication line: the connection's, or a new one
 * where its first line was not logged; who it serves starts afresh. */
static struct sshd_session *session_for_auth(struct sshd_sessions *ss, const char *host, long pid)
{
	struct sshd_session *s = session_find(ss, host, pid);

	if (s == NULL)
		return session_new(ss, host, pid);
	s->user[0] = s->from[0] = s->port[0] = s->key[0] = '\0';
	return s;
}

/* "Connection from ...", "Accepted M for U from A port P ssh2...",
 * "Partial publickey for ...", "User child is on pid N": which connection
 * a process serves, and who. */
static void remember(struct sshd_sessions *ss, const char *host, long pid, char *m)
{
	struct sshd_session *s, *parent, copy;
	char from[64], port[8];
	char *rest, *user, *key = NULL, *end;
	bool accepted;
	long child;

	if ((rest = after(m, "Connection from ")) != NULL) {
		connection_start(ss, host, pid, rest);
		return;
	}
	if ((rest = after(m, "User child is on pid ")) != NULL) {
		child = strtol(rest, &end, 10);
		parent = session_find(ss, host, pid);
		if (*end != '\0' || child <= 0 || child == pid || parent == NULL)
			return;
		copy = *parent;
		if ((s = session_new(ss, host, child)) == NULL)
			return;
		copy.pid = child;
		copy.parent = pid;
		copy.seq = s->seq;
		*s = copy;
		return;
	}
	accepted = (rest = after(m, "Accepted ")) != NULL;
	if (!accepted && (rest = after(m, "Partial publickey for ")) != NULL) {
		key = strstr(rest, " ssh2: ");
	} else if (rest != NULL) {
		rest = strstr(rest, " for ");
		rest = rest != NULL ? rest + 5 : NULL;
	}
	if (rest == NULL || (end = strstr(rest, " ssh2")) == NULL)
		return;
	*end = '\0';
	user = head_from(rest, from, port, true);
	if (user == NULL || (s = session_for_auth(ss, host, pid)) == NULL)
		return;
	s->accepted = accepted;
	str_copy(s->user, sizeof(s->user), user);
	str_copy(s->from, sizeof(s->from), from);
	str_copy(s->port, sizeof(s->port), port);
	if (key != NULL && (key = strrchr(key + 7, ' ')) != NULL)
		str_copy(s->key, sizeof(s->key), key + 1);
}

static bool auth_incomplete(struct sshd_sessions *ss, const char *host, long pid, char *rest,
			    const char *how, struct sshd_event *ev)
{
	struct sshd_session *s;
	char *user = head_and_addr_port(rest, ev->from, ev->port);

	if (user == NULL || !str_copy(ev->user, sizeof(ev->user), user))
		return false;
	s = session_find(ss, host, pid);
	ev->event = "sshd_auth_incomplete";
	add(ev, "how", how);
	/* The key was right and the code never came: a key-only login. */
	add(ev, "key", s != NULL && s->key[0] != '\0' && strcmp(s->user, user) == 0 ? s->key : "-");
	return true;
}

static bool user_refused(char *rest, bool with_port, const char *tail, struct sshd_event *ev)
{
	char *reason = NULL;
	char *user;

	if (tail != NULL) {
		reason = strstr(rest, tail);
		if (reason == NULL)
			return false;
		*reason = '\0';
		reason += strlen(tail);
	}
	user = head_from(rest, ev->from, ev->port, with_port);
	if (user == NULL || !str_copy(ev->user, sizeof(ev->user), user))
		return false;
	ev->event = "sshd_user_refused";
	add(ev, "reason", reason != NULL ? reason : "no such user");
	return true;
}

static bool preauth_disconnect(char *rest, const char *how, struct sshd_event *ev)
{
	if (!addr_port(rest, ev->from, ev->port))
		return false;
	ev->event = "sshd_preauth_disconnect";
	add(ev, "how", how);
	return true;
}

/* "A port P, target T port TP" (local) or "A port P, target PATH" (streamlocal). */
static bool forward_refused(struct sshd_sessions *ss, const char *host, long pid, char *rest,
			    const char *kind, struct sshd_event *ev)
{
	char *target = strstr(rest, ", target ");
	char from[64], port[8];

	if (target == NULL)
		return false;
	*target = '\0';
	target += strlen(", target ");
	if (!addr_port(rest, from, port) || *target == '\0')
		return false;
	who_from_session(ss, host, pid, ev);
	ev->event = "sshd_forward_refused";
	add(ev, "kind", kind);
	add(ev, "target", target);
	return true;
}

static bool subsystem_refused(struct sshd_sessions *ss, const char *host, long pid, char *rest,
			      struct sshd_event *ev)
{
	char *by = strstr(rest, " by user ");

	if (by == NULL || !strip_suffix(by, " failed, subsystem not found"))
		return false;
	*by = '\0';
	who_from_session(ss, host, pid, ev);
	if (!str_copy(ev->user, sizeof(ev->user), by + strlen(" by user ")) || *rest == '\0')
		return false;
	ev->event = "sshd_subsystem_refused";
	add(ev, "subsystem", rest);
	return true;
}

/*
 * OpenSSH 9.8 on: the listener's "Timeout before authentication for
 * connection from A to L, pid = N" (or "from A, pid = N" off TCP), with a
 * stage such as " (early)" after it. It names the connection's pid, which
 * is gone: its entry is freed.
 */
static bool listener_timeout(struct sshd_sessions *ss, const char *host, char *rest,
			     struct sshd_event *ev)
{
	char *pid_at = strstr(rest, ", pid = ");
	char *to, *end;
	long child;

	if (pid_at == NULL)
		return false;
	*pid_at = '\0';
	child = strtol(pid_at + strlen(", pid = "), &end, 10);
	if (child <= 0 || (*end != '\0' && (*end != ' ' || end[1] != '(' || !strip_suffix(end, ")"))))
		return false;
	if ((to = strstr(rest, " to ")) != NULL)
		*to = '\0';
	if (!all_of(rest, strlen(rest), "0123456789abcdefABCDEF.:%", 63))
		return false;
	str_copy(ev->from, sizeof(ev->from), rest);
	session_free(ss, host, child);
	ev->event = "sshd_preauth_disconnect";
	add(ev, "how", "timeout");
	return true;
}

/*
 * sshd's lines after which the process that wrote them is gone: packet.c's
 * fatal ends of a connection ("Connection closed by", "Disconnected from",
 * "Connection reset by", "Connection from X timed out", "Unable to
 * negotiate with", "[TAG: ]Connection from X: error"), the session's last
 * line, the grace timeout. Scanners end most connections with one of
 * these, so their entries do not linger until the table evicts them.
 */
static bool ends_connection(const char *m)
{
	static const char *const heads[] = {
		"Connection closed by ", "Disconnected from ", "Connection reset by ",
		"Closing connection to ", "Timeout before authentication for ",
		"Unable to negotiate with ", "banner exchange: Connection from ",
	};
	size_t i, n = strlen(m);

	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		if (strncmp(m, heads[i], strlen(heads[i])) == 0)
			return true;
	}
	if (strncmp(m, "Connection from ", 16) != 0)
		return false;
	/* The first line, "Connection from A port P on L port LP", has no
	 * ": " (an address has no space after its colons). */
	return strstr(m, ": ") != NULL || (n > 10 && strcmp(m + n - 10, " timed out") == 0);
}

static bool read_refusal(struct sshd_sessions *ss, const char *host, long pid, char *m,
			 bool preauth, struct sshd_event *ev)
{
	char *r;

	if ((r = after(m, "Connection closed by authenticating user ")) != NULL)
		return auth_incomplete(ss, host, pid, r, "closed", ev);
	if ((r = after(m, "Disconnected from authenticating user ")) != NULL)
		return auth_incomplete(ss, host, pid, r, "disconnected", ev);
	if ((r = after(m, "Invalid user ")) != NULL)
		return user_refused(r, true, NULL, ev);
	if ((r = after(m, "User ")) != NULL && strstr(r, " not allowed because ") != NULL)
		return user_refused(r, false, " not allowed because ", ev);
	if (preauth && (r = after(m, "Connection closed by ")) != NULL)
		return preauth_disconnect(r, "closed", ev);
	if (preauth && (r = after(m, "Disconnected from ")) != NULL)
		return preauth_disconnect(r, "disconnected", ev);
	if ((r = after(m, "Timeout before authentication for connection from ")) != NULL)
		return listener_timeout(ss, host, r, ev);
	if ((r = after(m, "Timeout before authentication for ")) != NULL)
		return preauth_disconnect(r, "timeout", ev);
	if ((r = after(m, "refused local port forward: originator ")) != NULL)
		return forward_refused(ss, host, pid, r, "local", ev);
	if ((r = after(m, "refused streamlocal port forward: originator ")) != NULL)
		return forward_refused(ss, host, pid, r, "streamlocal", ev);
	if ((r = after(m, "subsystem request for ")) != NULL)
		return subsystem_refused(ss, host, pid, r, ev);
	if (!preauth)
		remember(ss, host, pid, m);
	return false;
}

bool sshd_log_read(struct sshd_sessions *ss, const char *host, long pid, const char *msg,
		   struct sshd_event *ev)
{
	char m[SSHD_MSG_MAX];
	struct sshd_session *s;
	bool preauth, found, ends;

	memset(ev, 0, sizeof(*ev));
	str_copy(ev->user, sizeof(ev->user), "-");
	str_copy(ev->from, sizeof(ev->from), "-");
	str_copy(ev->port, sizeof(ev->port), "-");
	if (!str_copy(m, sizeof(m), msg))
		return false;
	preauth = strip_suffix(m, " [preauth]");
	ends = ends_connection(m);
	found = read_refusal(ss, host, pid, m, preauth, ev);
	/* Read before the entry goes: the connection's last line is often
	 * the refusal itself. */
	s = session_find(ss, host, pid);
	ev->lport = s != NULL ? s->lport : 0;
	if (ends)
		session_free(ss, host, pid);
	return found;
}
