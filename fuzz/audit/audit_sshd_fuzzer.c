/*
 * sshd's own log lines (audit/sshd_log.c, through trail.c): the input is
 * several lines, read in order with one session memory, as postern-audit
 * reads a log; each is tried as a syslog line and as the MESSAGE of a
 * journal entry from root. It must never crash, and an sshd_* record it
 * makes must have its five leading fields, sid "-", and values free of
 * control characters and invalid UTF-8, whatever sshd (or a forger) wrote.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "fields.h"
#include "trail.h"

#define LINE_MAX_FUZZ 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = fields_printable_len((const unsigned char *)s + i, len - i);
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
static size_t as_journal(const char *msg, size_t len, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "{\"__REALTIME_TIMESTAMP\":\"1\",\"_UID\":\"0\",\"_PID\":\"7\","
				    "\"SYSLOG_IDENTIFIER\":\"postern-sshd\",\"MESSAGE\":\"");
	size_t i;

	for (i = 0; i < len && n + 8 < cap; i++)
		n += (size_t)snprintf(out + n, cap - n, (unsigned char)msg[i] < 0x20 || msg[i] == '"' ||
				      msg[i] == '\\' ? "\\u%04x" : "%c", (unsigned char)msg[i]);
	return n + (size_t)snprintf(out + n, cap - n, "\"}");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sshd_sessions sessions;
	static char line[LINE_MAX_FUZZ + 64], json[6 * LINE_MAX_FUZZ + 256];
	struct trail_rules rules = {
		.years = { .year = 2026, .fixed = true },
		.daemon_uid = 999,
		.sshd_tag = "postern-sshd",
		.sshd = &sessions,
	};
	const char *p = (const char *)data, *end = p + size, *nl;
	size_t len, n;

	memset(&sessions, 0, sizeof(sessions));
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		len = (size_t)((nl != NULL ? nl : end) - p);
		if (len <= LINE_MAX_FUZZ) {
			n = (size_t)snprintf(line, sizeof(line), "Dec  3 06:56:40 vm postern-sshd[%zu]: ", len % 4);
			memcpy(line + n, p, len);
			check(&rules, line, n + len, TRAIL_SYSLOG);
			n = as_journal(p, len, json, sizeof(json));
			check(&rules, json, n < sizeof(json) ? n : sizeof(json) - 1, TRAIL_JOURNAL);
		}
		p += len + 1;
	}
	return 0;
}
