/* Splits a syslog line into time, host, tag, pid and message; it only
 * splits, never decides what to believe (trail.c does). */
#include "syslog_line.h"

#include <errno.h>
#include <string.h>


struct span {
	const char *s;
	size_t len;
};

/* The next space-delimited token; false if there is none. */
static bool next_token(struct span *rest, struct span *tok)
{
	const char *sp;

	if (rest->len == 0 || rest->s[0] == ' ')
		return false;
	sp = memchr(rest->s, ' ', rest->len);
	tok->s = rest->s;
	tok->len = sp != NULL ? (size_t)(sp - rest->s) : rest->len;
	rest->s += tok->len;
	rest->len -= tok->len;
	if (rest->len > 0) {
		rest->s++;
		rest->len--;
	}
	return true;
}

static bool copy_token(char *dst, size_t dstlen, struct span tok)
{
	size_t i;

	if (tok.len == 0 || tok.len >= dstlen)
		return false;
	for (i = 0; i < tok.len; i++) {
		if ((unsigned char)tok.s[i] <= 0x20 || (unsigned char)tok.s[i] >= 0x7f)
			return false;
	}
	memcpy(dst, tok.s, tok.len);
	dst[tok.len] = '\0';
	return true;
}

static bool parse_pid(struct span tok, long *pid)
{
	size_t i;

	*pid = 0;
	if (tok.len == 0 || tok.len > 9)
		return false;
	for (i = 0; i < tok.len; i++) {
		if (tok.s[i] < '0' || tok.s[i] > '9')
			return false;
		*pid = *pid * 10 + (tok.s[i] - '0');
	}
	return true;
}

/* "tag[pid]: message" or "tag: message" (traditional and file format). */
static int parse_tag_and_message(struct syslog_line *l, struct span rest, struct pst_err *e)
{
	const char *colon = memchr(rest.s, ':', rest.len);
	struct span tag = { rest.s, 0 };
	const char *br;

	if (colon == NULL || (size_t)(colon - rest.s) + 1 >= rest.len || colon[1] != ' ')
		return pst_fail(e, EINVAL, "no \"tag: \" before the message");
	tag.len = (size_t)(colon - rest.s);
	br = memchr(tag.s, '[', tag.len);
	if (br != NULL) {
		struct span pid = { br + 1, (size_t)(colon - br) - 2 };
		if (colon[-1] != ']' || colon - br < 2 || !parse_pid(pid, &l->pid))
			return pst_fail(e, EINVAL, "malformed [pid] after the tag");
		tag.len = (size_t)(br - tag.s);
	}
	if (!copy_token(l->tag, sizeof(l->tag), tag))
		return pst_fail(e, EINVAL, "malformed syslog tag");
	l->msg = colon + 2;
	l->msg_len = (size_t)(rest.s + rest.len - l->msg);
	return 0;
}

static int parse_host_tail(struct syslog_line *l, struct span rest, struct pst_err *e)
{
	struct span host;

	if (!next_token(&rest, &host) || !copy_token(l->host, sizeof(l->host), host))
		return pst_fail(e, EINVAL, "no host name after the time");
	return parse_tag_and_message(l, rest, e);
}

/* Skips "-" or one or more [SD-ELEMENT]s; quoted values may hold \] and \". */
static bool skip_structured_data(struct span *rest)
{
	size_t i = 0;
	bool quoted = false;

	if (rest->len > 0 && rest->s[0] == '-') {
		i = 1;
	} else {
		while (i < rest->len && rest->s[i] == '[') {
			for (i++; i < rest->len && (quoted || rest->s[i] != ']'); i++) {
				if (quoted && rest->s[i] == '\\')
					i++;
				else if (rest->s[i] == '"')
					quoted = !quoted;
			}
			if (i >= rest->len)
				return false;
			i++;
		}
		if (i == 0)
			return false;
	}
	if (i < rest->len && rest->s[i] != ' ')
		return false;
	if (i < rest->len)
		i++;
	rest->s += i;
	rest->len -= i;
	return true;
}

static int parse_rfc5424(struct syslog_line *l, struct span rest, struct pst_err *e)
{
	struct span ts, host, app, procid, msgid;

	if (!next_token(&rest, &ts) || !next_token(&rest, &host) ||
	    !next_token(&rest, &app) || !next_token(&rest, &procid) ||
	    !next_token(&rest, &msgid))
		return pst_fail(e, EINVAL, "RFC 5424 header cut short");
	if (ts.len == 1 && ts.s[0] == '-')
		return pst_fail(e, EINVAL, "RFC 5424 line without a time");
	if (time_parse_iso(ts.s, ts.len, false, &l->time_us) != ts.len)
		return pst_fail(e, EINVAL, "RFC 5424 time is not ISO 8601");
	if (!copy_token(l->host, sizeof(l->host), host) ||
	    !copy_token(l->tag, sizeof(l->tag), app))
		return pst_fail(e, EINVAL, "malformed RFC 5424 host or app name");
	if (!(procid.len == 1 && procid.s[0] == '-') && !parse_pid(procid, &l->pid))
		return pst_fail(e, EINVAL, "RFC 5424 procid is not a pid");
	if (!skip_structured_data(&rest))
		return pst_fail(e, EINVAL, "malformed RFC 5424 structured data");
	/* rsyslog keeps the space a legacy sender put after "tag:" in msg, so
	 * its RFC 5424 template writes "- -  event=...": drop that one. */
	if (rest.len > 0 && rest.s[0] == ' ') {
		rest.s++;
		rest.len--;
	}
	if (rest.len >= 3 && memcmp(rest.s, "\xef\xbb\xbf", 3) == 0) {
		rest.s += 3;
		rest.len -= 3;
	}
	l->msg = rest.s;
	l->msg_len = rest.len;
	return 0;
}

/* "<PRI>1 " or "1 " before an RFC 5424 header; returns its length or 0. */
static size_t rfc5424_prefix(const char *s, size_t len)
{
	size_t i = 0;

	if (len > 0 && s[0] == '<') {
		for (i = 1; i < len && i < 5 && s[i] >= '0' && s[i] <= '9'; i++)
			;
		if (i == 1 || i >= len || s[i] != '>')
			return 0;
		i++;
	}
	return (i + 1 < len && s[i] == '1' && s[i + 1] == ' ') ? i + 2 : 0;
}

int syslog_line_parse(struct syslog_line *l, const char *line, size_t len,
		      const struct year_rule *years, struct pst_err *e)
{
	struct span rest = { line, len };
	size_t n;

	memset(l, 0, sizeof(*l));
	l->pid = -1;
	if ((n = rfc5424_prefix(line, len)) > 0) {
		rest.s += n;
		rest.len -= n;
		return parse_rfc5424(l, rest, e);
	}
	if (len > 16 && line[15] == ' ' && time_parse_traditional(line, years, &l->time_us)) {
		rest.s += 16;
		rest.len -= 16;
		return parse_host_tail(l, rest, e);
	}
	n = time_parse_iso(line, len, false, &l->time_us);
	if (n > 10 && n < len && line[n] == ' ') {
		rest.s += n + 1;
		rest.len -= n + 1;
		return parse_host_tail(l, rest, e);
	}
	return pst_fail(e, EINVAL, "not a syslog line (no traditional, ISO or RFC 5424 time at its start)");
}
