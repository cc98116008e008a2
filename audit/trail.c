/* postern-audit's decision: which input lines are audit records it may count;
 * it never counts a line that common/audit.c could not have written. */
#include "trail.h"

#include <errno.h>
#include <string.h>

#include "audit.h"
#include "events.h"
#include "journal_json.h"
#include "sshd_log.h"
#include "syslog_line.h"
#include "text.h"
#include "text_show.h"

/* Where a message came from, whichever the input format. */
struct origin {
	int64_t time_us;
	const char *host;
	const char *tag;
	long pid;
	long uid;               /* journal only, else -1 */
	const char *exe;        /* journal only, else "" */
	const char *msg;
	size_t msg_len;
	bool journal;
};

static const char leading_keys[5][6] = { "event", "user", "from", "port", "sid" };

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

/* "pam_postern(SERVICE:TYPE): " as pam_syslog() writes it; its length or 0. */
static size_t pam_prefix(const char *s, size_t len, char *service, size_t service_size)
{
	size_t i = strlen("pam_postern("), start = i, svc_len;

	while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			   (s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == '_' || s[i] == '-'))
		i++;
	svc_len = i - start;
	if (svc_len == 0 || svc_len >= service_size || i >= len || s[i] != ':')
		return 0;
	memcpy(service, s + start, svc_len);
	service[svc_len] = '\0';
	for (i++; i < len && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'); i++)
		;
	if (!starts_with(s + i, len - i, "): ") || s[i - 1] == ':')
		return 0;
	return i + 3;
}

/* Which program the record claims to come from, and where its fields start. */
static enum trail_verdict classify(const struct origin *o, struct trail_record *r,
				   size_t *body, struct pst_err *why)
{
	if (starts_with(o->msg, o->msg_len, "event=")) {
		r->emitter = emitter_of_tag(o->tag);
		if (r->emitter == 0) {
			pst_fail(why, EINVAL, "an audit record under the tag \"%s\", which is not a postern program (forged with logger?)",
				 o->tag);
			return TRAIL_SUSPICIOUS;
		}
		*body = 0;
		return TRAIL_RECORD;
	}
	if (!starts_with(o->msg, o->msg_len, "pam_postern("))
		return TRAIL_OTHER;
	*body = pam_prefix(o->msg, o->msg_len, r->service, sizeof(r->service));
	if (*body == 0 || !starts_with(o->msg + *body, o->msg_len - *body, "event=")) {
		pst_fail(why, EINVAL, "a pam_postern message that is not \"pam_postern(SERVICE:TYPE): event=...\"");
		return TRAIL_SUSPICIOUS;
	}
	r->emitter = EMIT_PAM;
	return TRAIL_RECORD;
}

/* rsyslog writes a raw control character as '#' and three octal digits. */
static int check_no_escaped_control(const char *s, size_t len, struct pst_err *why)
{
	size_t i;
	int v;

	for (i = 0; i + 3 < len; i++) {
		if (s[i] != '#' || s[i + 1] < '0' || s[i + 1] > '3' || s[i + 2] < '0' ||
		    s[i + 2] > '7' || s[i + 3] < '0' || s[i + 3] > '7')
			continue;
		v = (s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0');
		if (v < 0x20 || v == 0x7f)
			return pst_fail(why, EINVAL, "holds #%.3s, how rsyslog writes a raw control character, which audit records never contain",
					s + i + 1);
	}
	return 0;
}

static bool is_session_id(const char *s)
{
	size_t i;

	for (i = 0; i < 16; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return s[16] == '\0';
}

/*
 * postern-installd's own from, port and sid name its socket connection
 * ("local"); what its client claimed about the SSH session comes as
 * client_from, client_port, client_session. Sessions and --from are about
 * the SSH session, so a daemon record is joined to the one its client
 * claims: a claim by a process of the same user (the record's user is the
 * kernel's word), as docs/AUDIT.md says.
 */
static void join_claimed_session(struct trail_record *r)
{
	const char *sid = fields_get(&r->f, "client_session");
	const char *from = fields_get(&r->f, "client_from");
	const char *port = fields_get(&r->f, "client_port");

	if (r->emitter != EMIT_INSTALLD || sid == NULL || !is_session_id(sid))
		return;
	r->sid = sid;
	r->from = from != NULL ? from : "-";
	r->port = port != NULL ? port : "-";
}

static int check_schema(struct trail_record *r, struct pst_err *why)
{
	const struct event_info *ev;
	const struct audit_fields *f = &r->f;
	size_t i, j;

	for (i = 0; i < 5; i++) {
		if (i >= f->count || strcmp(f->key[i], leading_keys[i]) != 0)
			return pst_fail(why, EINVAL, "field %zu is not \"%s\" (records start with event, user, from, port, sid)",
					i + 1, leading_keys[i]);
	}
	for (i = 0; i < f->count; i++) {
		for (j = i + 1; j < f->count; j++) {
			if (strcmp(f->key[i], f->key[j]) == 0)
				return pst_fail(why, EINVAL, "field \"%s\" given twice", f->key[i]);
		}
		if (strcmp(f->key[i], "truncated") == 0 &&
		    (i + 1 != f->count || strcmp(f->value[i], "yes") != 0))
			return pst_fail(why, EINVAL, "\"truncated\" is not the last field or not \"yes\"");
	}
	r->event = f->value[0];
	r->user = f->value[1];
	r->from = f->value[2];
	r->port = f->value[3];
	r->sid = f->value[4];
	ev = event_find(r->event);
	if (ev == NULL)
		return pst_fail(why, EINVAL, "unknown event \"%s\" (not in docs/AUDIT.md)", r->event);
	if ((ev->emitters & r->emitter) == 0)
		return pst_fail(why, EINVAL, "%s does not emit %s events", emitter_name(r->emitter), r->event);
	/* sshd's lines carry no session id: postern's own records do. */
	if (r->emitter == EMIT_SSHD ? strcmp(r->sid, "-") != 0 : !is_session_id(r->sid))
		return pst_fail(why, EINVAL, "sid \"%s\" is not 16 hex digits", r->sid);
	join_claimed_session(r);
	return 0;
}

/* Journal only: the kernel-vouched sender must be one this program runs as. */
static int check_sender(const struct origin *o, const struct trail_record *r,
			const struct trail_rules *rules, struct pst_err *why)
{
	if (o->uid < 0)
		return pst_fail(why, EINVAL, "journal entry without _UID: sender unknown");
	if (o->uid == 0 || (rules->daemon_uid >= 0 && o->uid == rules->daemon_uid))
		return 0;
	/* postern-shell runs as the maintainer: it may speak for that user only.
	 * journald reads _EXE from /proc after the fact, so it is missing when
	 * the sender has already exited (the shell logs session_end and exits):
	 * a missing _EXE is no evidence, a different one is. */
	if (r->emitter == EMIT_SHELL && rules->uid_of_user != NULL &&
	    rules->uid_of_user(r->user) == o->uid &&
	    (o->exe[0] == '\0' || (rules->shell_exe != NULL && strcmp(o->exe, rules->shell_exe) == 0)))
		return 0;
	if (r->emitter == EMIT_SHELL)
		return pst_fail(why, EPERM, "forged: sent by uid %ld (%s), which is not root, the postern daemon, or the postern-shell of user \"%s\"",
				o->uid, o->exe[0] != '\0' ? o->exe : "program unknown", r->user);
	return pst_fail(why, EPERM, "forged: sent by uid %ld (%s), but %s records come only from root or the postern daemon",
			o->uid, o->exe[0] != '\0' ? o->exe : "program unknown", emitter_name(r->emitter));
}

/* One of sshd's refusals, written out as audit.c would and parsed back, so
 * it reaches the reports exactly like every other record. */
static int sshd_record(const struct sshd_event *ev, struct trail_record *r, struct pst_err *why)
{
	const char *kv[2 * SSHD_EXTRA_MAX + 1];
	struct audit_session s;
	char text[AUDIT_RECORD_MAX];
	size_t i, len;

	memset(&s, 0, sizeof(s));
	if (!str_copy(s.user, sizeof(s.user), ev->user))
		str_copy(s.user, sizeof(s.user), "(over-long)");
	str_copy(s.from, sizeof(s.from), ev->from);
	str_copy(s.port, sizeof(s.port), ev->port);
	str_copy(s.sid, sizeof(s.sid), "-");
	for (i = 0; i < ev->nextra; i++) {
		kv[2 * i] = ev->extra_key[i];
		kv[2 * i + 1] = ev->extra_value[i];
	}
	kv[2 * i] = NULL;
	len = audit_format(text, sizeof(text), ev->event, &s, kv);
	return fields_parse(&r->f, text, len, why);
}

/* The tags OpenSSH 9.8 and later log a connection under, whichever sshd
 * (and whatever name) the listener runs as. */
static bool is_session_tag(const char *tag)
{
	return strcmp(tag, "sshd-session") == 0 || strcmp(tag, "sshd-auth") == 0;
}

static bool is_sshd_tag(const char *tag, const struct trail_rules *rules)
{
	return rules->sshd_tag != NULL && (strcmp(tag, rules->sshd_tag) == 0 || is_session_tag(tag));
}

/* Whose sshd a recognised line is from. The postern sshd's own tag is
 * always its; an sshd-session line is the postern sshd's when its
 * connection came in on one of --sshd-port (lport 0: not known). */
static bool sshd_is_postern(const char *tag, unsigned lport, const struct trail_rules *rules)
{
	size_t i;

	if (!is_session_tag(tag) || rules->sshd_nports == 0)
		return true;
	for (i = 0; i < rules->sshd_nports && i < TRAIL_SSHD_PORTS_MAX; i++) {
		if (lport != 0 && rules->sshd_ports[i] == lport)
			return true;
	}
	return false;
}

static enum trail_verdict read_sshd(const struct origin *o, const struct trail_rules *rules,
				    struct trail_record *r, struct pst_err *why)
{
	struct sshd_event ev;
	char msg[2048];
	/* Only root's lines may change what is remembered about a
	 * connection: in the journal, a user's forged "Connection from"
	 * must not make a postern connection look like the admins'. */
	struct sshd_sessions *memory = o->journal && o->uid != 0 ? NULL : rules->sshd;

	if (o->msg_len >= sizeof(msg) || memchr(o->msg, '\0', o->msg_len) != NULL)
		return TRAIL_OTHER;
	memcpy(msg, o->msg, o->msg_len);
	msg[o->msg_len] = '\0';
	if (!sshd_log_read(memory, o->host, o->pid, msg, &ev) ||
	    !sshd_is_postern(o->tag, ev.lport, rules))
		return TRAIL_OTHER;
	r->emitter = EMIT_SSHD;
	if (!text_printable(o->msg, o->msg_len) ||
	    (!o->journal && check_no_escaped_control(o->msg, o->msg_len, why) != 0)) {
		pst_fail(why, EINVAL, "an sshd line with a raw control character or invalid UTF-8, which sshd never writes");
		return TRAIL_SUSPICIOUS;
	}
	if (o->journal && o->uid != 0) {
		pst_fail(why, EPERM, "forged: an sshd line sent by uid %ld (%s), but sshd logs as root",
			 o->uid, o->exe[0] != '\0' ? o->exe : "program unknown");
		return TRAIL_SUSPICIOUS;
	}
	if (sshd_record(&ev, r, why) != 0 || check_schema(r, why) != 0) {
		trail_record_free(r);
		return TRAIL_SUSPICIOUS;
	}
	return TRAIL_RECORD;
}

/* A postern record: "event=..." or pam_postern's "pam_postern(...): event=...". */
static enum trail_verdict read_postern(const struct origin *o, const struct trail_rules *rules,
				       struct trail_record *r, struct pst_err *why)
{
	enum trail_verdict v;
	size_t body = 0;

	v = classify(o, r, &body, why);
	if (v != TRAIL_RECORD)
		return v;
	if ((!o->journal && check_no_escaped_control(o->msg, o->msg_len, why) != 0) ||
	    fields_parse(&r->f, o->msg + body, o->msg_len - body, why) != 0 ||
	    check_schema(r, why) != 0 ||
	    (o->journal && check_sender(o, r, rules, why) != 0)) {
		trail_record_free(r);
		return TRAIL_SUSPICIOUS;
	}
	return TRAIL_RECORD;
}

static enum trail_verdict read_origin(const struct origin *o, const struct trail_rules *rules,
				      struct trail_record *r, struct pst_err *why)
{
	enum trail_verdict v = read_postern(o, rules, r, why);

	if (v == TRAIL_OTHER && is_sshd_tag(o->tag, rules))
		v = read_sshd(o, rules, r, why);
	if (v != TRAIL_RECORD)
		return v;
	r->time_us = o->time_us;
	r->pid = o->pid;
	r->verified = o->journal;
	if (strlen(o->host) < sizeof(r->host))
		strcpy(r->host, o->host);
	return TRAIL_RECORD;
}

static enum trail_verdict read_syslog(const char *line, size_t len, const struct trail_rules *rules,
				      struct trail_record *r, struct pst_err *why)
{
	struct syslog_line l;
	struct origin o;

	if (syslog_line_parse(&l, line, len, &rules->years, why) != 0)
		return TRAIL_SUSPICIOUS;
	o = (struct origin){ .time_us = l.time_us, .host = l.host, .tag = l.tag, .pid = l.pid,
			     .uid = -1, .exe = "", .msg = l.msg, .msg_len = l.msg_len };
	return read_origin(&o, rules, r, why);
}

static enum trail_verdict read_journal(const char *line, size_t len, const struct trail_rules *rules,
				       struct trail_record *r, struct pst_err *why)
{
	struct journal_entry j;
	struct origin o;
	enum trail_verdict v;

	if (journal_entry_parse(&j, line, len, why) != 0) {
		journal_entry_free(&j);
		return TRAIL_SUSPICIOUS;
	}
	o = (struct origin){ .time_us = j.time_us, .host = j.host, .tag = j.tag, .pid = j.pid,
			     .uid = j.uid, .exe = j.exe, .msg = j.msg, .msg_len = j.msg_len,
			     .journal = true };
	v = read_origin(&o, rules, r, why);
	journal_entry_free(&j);
	return v;
}

enum trail_verdict trail_read_line(const char *line, size_t len,
				   enum trail_source source,
				   const struct trail_rules *rules,
				   struct trail_record *r, struct pst_err *why)
{
	memset(r, 0, sizeof(*r));
	if (source == TRAIL_JOURNAL)
		return read_journal(line, len, rules, r, why);
	return read_syslog(line, len, rules, r, why);
}

void trail_record_free(struct trail_record *r)
{
	fields_free(&r->f);
}
