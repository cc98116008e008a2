/*
 * Writes the structured audit records (audit.h) to syslog. It must never let a
 * value end its field, start another or break the line, and never log a secret.
 */
#include "audit.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "login_proof.h"
#include "sid_hash.h"
#include "text.h"
#include "text_show.h"

#define AUDIT_MAX_PAIRS 32
#define TRUNCATED_MARK " truncated=yes"

static audit_writer_fn *audit_writer;
static void *audit_writer_arg;

struct outbuf {
	char *buf;
	size_t cap;     /* usable bytes, excluding the NUL */
	size_t len;
	bool full;
};

static bool out_put(struct outbuf *o, const char *s, size_t n)
{
	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return false;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
	return true;
}

static bool is_bare_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("._,:/@+%-[]", c) != NULL;
}

static bool value_is_bare(const char *v)
{
	if (*v == '\0')
		return false;
	for (; *v != '\0'; v++) {
		if (!is_bare_char((unsigned char)*v))
			return false;
	}
	return true;
}

/* The escaped form of the unit starting at p; returns input bytes consumed. */
static size_t escape_unit(const unsigned char *p, size_t avail, char *unit,
			  size_t *unit_len)
{
	size_t n = text_printable_len(p, avail);
	size_t i;

	/* '#' too: rsyslog writes a raw control character as "#ooo", so a record
	 * holding '#' and three octal digits must be unambiguously forged. */
	if (n == 1 && p[0] != '#') {
		if (p[0] == '"' || p[0] == '\\') {
			unit[0] = '\\';
			unit[1] = (char)p[0];
			*unit_len = 2;
		} else {
			unit[0] = (char)p[0];
			*unit_len = 1;
		}
		return 1;
	}
	if (n > 1) {
		memcpy(unit, p, n);
		*unit_len = n;
		return n;
	}
	n = n == 1 ? 1 : utf8_seq_len(p, avail);
	if (n == 0)
		n = 1;
	for (i = 0; i < n; i++)
		snprintf(unit + 4 * i, 5, "\\x%02x", p[i]);
	*unit_len = 4 * n;
	return n;
}

size_t audit_escape(char *out, size_t outlen, const char *value, int *truncated)
{
	const unsigned char *p;
	struct outbuf o;
	size_t avail;
	char unit[24];
	size_t unit_len;
	size_t used;

	if (outlen == 0)
		return 0;
	o.buf = out;
	o.cap = (outlen - 1 < AUDIT_VALUE_MAX ? outlen - 1 : AUDIT_VALUE_MAX);
	o.len = 0;
	o.full = false;
	out[0] = '\0';
	if (value == NULL)
		value = "-";
	if (value_is_bare(value) && strlen(value) <= o.cap) {
		out_put(&o, value, strlen(value));
		return o.len;
	}
	/* Room for the closing quote and a possible "..." is kept back. */
	if (o.cap < 6)
		return 0;
	o.cap -= 4;
	out_put(&o, "\"", 1);
	p = (const unsigned char *)value;
	avail = strlen(value);
	while (avail > 0) {
		used = escape_unit(p, avail, unit, &unit_len);
		if (!out_put(&o, unit, unit_len))
			break;
		p += used;
		avail -= used;
	}
	o.cap += 4;
	if (o.full) {
		o.full = false;
		out_put(&o, "...", 3);
		if (truncated != NULL)
			*truncated = 1;
	}
	out_put(&o, "\"", 1);
	return o.len;
}

static bool key_is_valid(const char *k)
{
	if (k == NULL || !(*k >= 'a' && *k <= 'z'))
		return false;
	for (k++; *k != '\0'; k++) {
		if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_'))
			return false;
	}
	return true;
}

static bool put_field(struct outbuf *o, const char *key, const char *value,
		      int *truncated)
{
	char escaped[AUDIT_VALUE_MAX + 1];
	size_t n;

	if (!key_is_valid(key))
		key = "invalid_key";
	n = audit_escape(escaped, sizeof(escaped), value, truncated);
	if (o->len > 0 && !out_put(o, " ", 1))
		return false;
	return out_put(o, key, strlen(key)) && out_put(o, "=", 1) &&
	       out_put(o, escaped, n);
}

size_t audit_format(char *out, size_t outlen, const char *event,
		    const struct audit_session *s, const char *const kv[])
{
	struct outbuf o;
	int truncated = 0;
	size_t keep;
	size_t i;

	if (outlen <= sizeof(TRUNCATED_MARK))
		return 0;
	o.buf = out;
	o.cap = outlen - 1 - (sizeof(TRUNCATED_MARK) - 1);
	o.len = 0;
	o.full = false;
	out[0] = '\0';
	put_field(&o, "event", event, &truncated);
	if (s != NULL) {
		put_field(&o, "user", s->user, &truncated);
		put_field(&o, "from", s->from, &truncated);
		put_field(&o, "port", s->port, &truncated);
		put_field(&o, "sid", s->sid, &truncated);
		if (s->client_session[0] != '\0') {
			put_field(&o, "client_from", s->client_from, &truncated);
			put_field(&o, "client_port", s->client_port, &truncated);
			put_field(&o, "client_session", s->client_session, &truncated);
		}
	}
	for (i = 0; kv != NULL && kv[i] != NULL && !o.full; i += 2) {
		keep = o.len;
		if (!put_field(&o, kv[i], kv[i + 1], &truncated)) {
			/* Never leave half a field behind. */
			o.len = keep;
			o.buf[keep] = '\0';
			o.full = true;
		}
	}
	if (o.full || truncated) {
		o.cap += sizeof(TRUNCATED_MARK) - 1;
		o.full = false;
		out_put(&o, TRUNCATED_MARK, sizeof(TRUNCATED_MARK) - 1);
	}
	return o.len;
}

static void read_boot_id(char *buf, size_t len)
{
	if (len <= LOGIN_PROOF_BOOT_ID_LEN || boot_id_read(buf, NULL) < 0)
		buf[0] = '\0';
}

static bool token_is(const char *tok, size_t n, const char *allowed, size_t max)
{
	size_t i;

	if (n == 0 || n > max)
		return false;
	for (i = 0; i < n; i++) {
		if (strchr(allowed, tok[i]) == NULL || tok[i] == '\0')
			return false;
	}
	return true;
}

/* "addr port addr port", nothing else; fills from and port. */
static bool parse_connection(const char *conn, struct audit_session *s)
{
	static const char addr_chars[] = "0123456789abcdefABCDEF.:";
	static const char digits[] = "0123456789";
	const char *tok[4];
	size_t len[4];
	const char *p = conn;
	int i;

	for (i = 0; i < 4; i++) {
		tok[i] = p;
		len[i] = strcspn(p, " ");
		p += len[i];
		if (i < 3) {
			if (*p != ' ')
				return false;
			p++;
		}
	}
	if (*p != '\0' || !token_is(tok[0], len[0], addr_chars, 45) ||
	    !token_is(tok[1], len[1], digits, 5) ||
	    !token_is(tok[2], len[2], addr_chars, 45) ||
	    !token_is(tok[3], len[3], digits, 5))
		return false;
	memcpy(s->from, tok[0], len[0]);
	s->from[len[0]] = '\0';
	memcpy(s->port, tok[1], len[1]);
	s->port[len[1]] = '\0';
	return true;
}

void audit_session_init(struct audit_session *s, const char *user,
			const char *ssh_connection)
{
	char boot_id[64];
	char seed[256];
	struct timespec now;
	int n;

	memset(s, 0, sizeof(*s));
	if (user == NULL || !str_copy(s->user, sizeof(s->user), user))
		str_copy(s->user, sizeof(s->user), user == NULL ? "-" : "(over-long)");
	read_boot_id(boot_id, sizeof(boot_id));
	if (ssh_connection != NULL && parse_connection(ssh_connection, s)) {
		n = snprintf(seed, sizeof(seed), "postern-sid|%s|%s", boot_id,
			     ssh_connection);
	} else {
		str_copy(s->from, sizeof(s->from), "local");
		str_copy(s->port, sizeof(s->port), "-");
		clock_gettime(CLOCK_REALTIME, &now);
		n = snprintf(seed, sizeof(seed), "postern-local|%s|%ld|%lld.%09ld",
			     boot_id, (long)getpid(), (long long)now.tv_sec,
			     now.tv_nsec);
	}
	sid_hash16(seed, n > 0 && (size_t)n < sizeof(seed) ? (size_t)n : 0, s->sid);
}

void audit_set_writer(audit_writer_fn *fn, void *arg)
{
	audit_writer = fn;
	audit_writer_arg = arg;
}

void audit_emitv(int priority, const char *event, const struct audit_session *s,
		 const char *const kv[])
{
	char record[AUDIT_RECORD_MAX];

	audit_format(record, sizeof(record), event, s, kv);
	if (audit_writer != NULL)
		audit_writer(priority, record, audit_writer_arg);
	else
		syslog(LOG_AUTHPRIV | priority, "%s", record);
}

void audit_emit(int priority, const char *event, const struct audit_session *s, ...)
{
	const char *kv[2 * AUDIT_MAX_PAIRS + 1];
	const char *key;
	va_list ap;
	size_t n = 0;

	va_start(ap, s);
	while ((key = va_arg(ap, const char *)) != NULL && n < 2 * AUDIT_MAX_PAIRS) {
		kv[n++] = key;
		kv[n++] = va_arg(ap, const char *);
	}
	va_end(ap);
	kv[n] = NULL;
	audit_emitv(priority, event, s, kv);
}
