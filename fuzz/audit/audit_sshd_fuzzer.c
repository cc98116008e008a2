/*
 * sshd's own log lines (audit/sshd_log.c, through trail.c): the input is
 * several lines, read in order with one session memory, as postern-audit
 * reads a log; each is tried as a syslog line and as the MESSAGE of a
 * journal entry from root. A line may start with its origin, "TAG[PID]: "
 * for the tags trail.c reads (postern-sshd, sshd-session, sshd-auth), so
 * that a corpus can replay OpenSSH 9.8+ connections by pid; otherwise it is
 * postern-sshd's, with a pid from its length. The whole input is read
 * twice, with --sshd-port 2222 and without, each time with a fresh memory.
 * It must never crash, and an sshd_* record it makes must have its five
 * leading fields, sid "-", and values free of control characters and
 * invalid UTF-8, whatever sshd (or a forger) wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "fields.h"
#include "trail.h"
#include "text_show.h"

#define LINE_MAX_FUZZ 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0)
			abort();
		i += n;
	}
}

static void check(struct trail_rules *rules, const char *line, size_t len, enum trail_source src)
{
	struct trail_record r;
	struct pst_err why;
	size_t i;

	switch (trail_read_line(line, len, src, rules, &r, &why)) {
	case TRAIL_RECORD:
		if (r.f.count < 5 || r.event == NULL || r.sid == NULL ||
		    (r.emitter == EMIT_SSHD && strcmp(r.sid, "-") != 0))
			abort();
		for (i = 0; i < r.f.count; i++)
			check_printable(r.f.value[i]);
		trail_record_free(&r);
		break;
	case TRAIL_SUSPICIOUS:
		check_printable(why.msg);
		break;
	case TRAIL_OTHER:
		break;
	}
}

/* The line as journalctl -o json would give it, from root, as a JSON string. */
static size_t as_journal(const char *tag, long pid, const char *msg, size_t len, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "{\"__REALTIME_TIMESTAMP\":\"1\",\"_UID\":\"0\",\"_PID\":\"%ld\","
				    "\"SYSLOG_IDENTIFIER\":\"%s\",\"MESSAGE\":\"", pid, tag);
	size_t i;

	for (i = 0; i < len && n + 8 < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, (unsigned char)msg[i] < 0x20 || msg[i] == '"' ||
				      msg[i] == '\\' ? "\\u%04x" : "%c", (unsigned char)msg[i]);
	return n + (size_t)snprintf(out + n, cap - n, "\"}");
}

/* "TAG[PID]: " at the start of p, for one of the tags trail.c reads: its
 * length, with tag and pid filled; 0 when the line does not start so. */
static size_t origin_prefix(const char *p, size_t len, const char **tag, long *pid)
{
	static const char *const tags[] = { "postern-sshd", "sshd-session", "sshd-auth" };
	size_t i, k, n;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		k = strlen(tags[i]);
		if (len <= k || memcmp(p, tags[i], k) != 0 || p[k] != '[')
			continue;
		*pid = 0;
		for (n = k + 1; n < len && n < k + 8 && p[n] >= '0' && p[n] <= '9'; n++)
			*pid = *pid * 10 + (p[n] - '0');
		if (n == k + 1 || len < n + 3 || memcmp(p + n, "]: ", 3) != 0)
			return 0;
		*tag = tags[i];
		return n + 3;
	}
	return 0;
}

static void read_log(const uint8_t *data, size_t size, size_t nports)
{
	static struct sshd_sessions sessions;
	static char line[LINE_MAX_FUZZ + 64], json[6 * LINE_MAX_FUZZ + 256];
	struct trail_rules rules = {
		.years = { .year = 2026, .fixed = true },
		.daemon_uid = 999,
		.sshd_tag = "postern-sshd",
		.sshd_ports = { 2222 },
		.sshd_nports = nports,
		.sshd = &sessions,
	};
	const char *p = (const char *)data, *end = p + size, *nl, *tag;
	size_t len, n, skip;
	long pid;

	memset(&sessions, 0, sizeof(sessions));
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		if (len <= LINE_MAX_FUZZ) {
			tag = "postern-sshd";
			pid = (long)(len % 4);
			skip = origin_prefix(p, len, &tag, &pid);
			n = (size_t)snprintf(line, sizeof(line), "Dec  3 06:56:40 vm %s[%ld]: ", tag, pid);
			memcpy(line + n, p + skip, len - skip);
			check(&rules, line, n + len - skip, TRAIL_SYSLOG);
			n = as_journal(tag, pid, p + skip, len - skip, json, sizeof(json));
			check(&rules, json, n < sizeof(json) ? n : sizeof(json) - 1, TRAIL_JOURNAL);
		}
		p += len + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_log(data, size, 0);
	read_log(data, size, 1);
	return 0;
}
