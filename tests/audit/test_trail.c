/* From a line to a record or a suspicion: syslog layouts, the journal's
 * sender check, the schema, and times. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events.h"
#include "syslog_line.h"
#include "timefmt.h"
#include "trail.h"

#define SID "3f9c0a7e51b2d4c8"
#define HEAD "user=alice from=192.0.2.7 port=50122 sid=" SID
#define DAEMON_UID 997
#define ALICE_UID 1234

static long test_uid_of_user(const char *user)
{
	return strcmp(user, "alice") == 0 ? ALICE_UID : -1;
}

static struct trail_rules rules(void)
{
	struct trail_rules r = {
		.years = { .year = 2026, .fixed = true },
		.daemon_uid = DAEMON_UID,
		.shell_exe = "/usr/bin/postern-shell",
		.uid_of_user = test_uid_of_user,
	};
	return r;
}

static enum trail_verdict read_as(enum trail_source src, const char *line,
				  struct trail_record *r, struct pst_err *why)
{
	struct trail_rules ru = rules();

	why->msg[0] = '\0';
	return trail_read_line(line, strlen(line), src, &ru, r, why);
}

static void expect_record(enum trail_source src, const char *line, const char *event)
{
	struct trail_record r;
	struct pst_err why;

	if (read_as(src, line, &r, &why) != TRAIL_RECORD)
		fail_msg("%s: %s", line, why.msg);
	assert_string_equal(r.event, event);
	assert_string_equal(r.user, "alice");
	assert_string_equal(r.sid, SID);
	assert_int_equal(r.verified, src == TRAIL_JOURNAL);
	trail_record_free(&r);
}

static void expect_suspicious(enum trail_source src, const char *line, const char *why_part)
{
	struct trail_record r;
	struct pst_err why;

	if (read_as(src, line, &r, &why) != TRAIL_SUSPICIOUS)
		fail_msg("accepted: %s", line);
	if (strstr(why.msg, why_part) == NULL)
		fail_msg("%s: expected \"%s\" in \"%s\"", line, why_part, why.msg);
}

static void test_syslog_layouts(void **state)
{
	struct syslog_line l;
	struct year_rule y = { .year = 2026, .fixed = true };
	struct pst_err e;
	const char *line = "Dec  3 06:34:25 host postern-shell[42]: event=x";
	char t[TIME_TEXT_MAX];

	(void)state;
	setenv("TZ", "UTC", 1);
	assert_int_equal(syslog_line_parse(&l, line, strlen(line), &y, &e), 0);
	assert_string_equal(l.host, "host");
	assert_string_equal(l.tag, "postern-shell");
	assert_int_equal(l.pid, 42);
	assert_int_equal(l.msg_len, 7);
	time_format_utc(l.time_us, t);
	assert_string_equal(t, "2026-12-03T06:34:25Z");

	expect_record(TRAIL_SYSLOG, "Dec  3 06:34:25 h sshd[7]: pam_postern(sshd:auth): event=login_ok " HEAD " service=sshd", "login_ok");
	expect_record(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-sshd[7]: pam_postern(postern-sshd:session_open): event=login_skip " HEAD, "login_skip");
	expect_record(TRAIL_SYSLOG, "2026-12-03T06:34:25.123456+01:00 h postern-installd[9]: event=install_ok " HEAD " module=gtk", "install_ok");
	expect_record(TRAIL_SYSLOG, "<86>1 2026-12-03T06:34:25Z h postern-shell 42 - - event=command_allow " HEAD, "command_allow");
	/* rsyslog's RSYSLOG_SyslogProtocol23Format for a message from /dev/log */
	expect_record(TRAIL_SYSLOG, "<86>1 2026-12-03T06:34:25.5+00:00 h postern-shell 42 - -  event=command_allow " HEAD, "command_allow");
	expect_record(TRAIL_SYSLOG, "<86>1 2026-12-03T06:34:25Z h sshd 42 - [meta x=\"a\\]\"] \xef\xbb\xbfpam_postern(sshd:account): event=login_fail " HEAD, "login_fail");
}

static void test_syslog_suspicions(void **state)
{
	(void)state;
	expect_suspicious(TRAIL_SYSLOG, "event=install_ok " HEAD, "not a syslog line");
	expect_suspicious(TRAIL_SYSLOG, "", "not a syslog line");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h logger: event=install_ok " HEAD, "not a postern program");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=install_ok " HEAD, "does not emit install_ok");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=reboot " HEAD, "unknown event");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny " HEAD " command=\"ls#012event=x\"", "#012");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny " HEAD " command=\"ls", "unterminated");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny user=alice sid=" SID, "field 3");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny " HEAD " mode=a mode=b", "twice");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny " HEAD " truncated=yes mode=a", "truncated");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[1]: event=command_deny user=alice from=a port=1 sid=XYZ", "16 hex");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h sshd[1]: pam_postern(sshd): event=login_ok " HEAD, "pam_postern");
	expect_suspicious(TRAIL_SYSLOG, "Dec 33 06:34:25 h postern-shell[1]: event=command_deny " HEAD, "not a syslog line");
	expect_suspicious(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[x]: event=command_deny " HEAD, "[pid]");
}

static void test_not_ours_is_ignored(void **state)
{
	struct trail_record r;
	struct pst_err why;

	(void)state;
	assert_int_equal(read_as(TRAIL_SYSLOG, "Dec  3 06:34:25 h sshd[7]: Accepted keyboard-interactive/pam for alice", &r, &why), TRAIL_OTHER);
	assert_int_equal(read_as(TRAIL_SYSLOG, "Dec  3 06:34:25 h postern-shell[7]: cannot reach postern-installd", &r, &why), TRAIL_OTHER);
	assert_int_equal(read_as(TRAIL_JOURNAL, "{\"__REALTIME_TIMESTAMP\":\"1\",\"MESSAGE\":\"hello\",\"_UID\":\"1000\"}", &r, &why), TRAIL_OTHER);
}

#define JOURNAL(uid, tag, exe, msg) \
	"{\"__REALTIME_TIMESTAMP\":\"1764743665000000\",\"_HOSTNAME\":\"h\",\"_PID\":\"42\",\"_UID\":\"" uid \
	"\",\"SYSLOG_IDENTIFIER\":\"" tag "\",\"_EXE\":\"" exe "\",\"MESSAGE\":\"" msg "\"}"

static void test_journal_sender_check(void **state)
{
	(void)state;
	expect_record(TRAIL_JOURNAL, JOURNAL("0", "sshd", "/usr/sbin/sshd", "pam_postern(sshd:auth): event=login_ok " HEAD), "login_ok");
	expect_record(TRAIL_JOURNAL, JOURNAL("997", "postern-installd", "/usr/sbin/postern-installd", "event=install_ok " HEAD), "install_ok");
	/* the shell runs as the maintainer and may speak for that user only */
	expect_record(TRAIL_JOURNAL, JOURNAL("1234", "postern-shell", "/usr/bin/postern-shell", "event=command_allow " HEAD), "command_allow");
	/* journald found no _EXE (the sender had exited): the uid decides */
	expect_record(TRAIL_JOURNAL, "{\"__REALTIME_TIMESTAMP\":\"1\",\"_UID\":\"1234\",\"SYSLOG_IDENTIFIER\":\"postern-shell\",\"MESSAGE\":\"event=session_end " HEAD "\"}", "session_end");
	expect_suspicious(TRAIL_JOURNAL, JOURNAL("1234", "postern-shell", "/usr/bin/logger", "event=command_allow " HEAD), "postern-shell of user \"alice\"");
	expect_suspicious(TRAIL_JOURNAL, JOURNAL("1235", "postern-shell", "/usr/bin/postern-shell", "event=command_allow " HEAD), "forged");
	expect_suspicious(TRAIL_JOURNAL, JOURNAL("1234", "postern-installd", "/usr/bin/logger", "event=install_ok " HEAD), "forged: sent by uid 1234 (/usr/bin/logger), but postern-installd records come only from root");
	expect_suspicious(TRAIL_JOURNAL, JOURNAL("1000", "sshd", "/usr/bin/logger", "pam_postern(sshd:auth): event=login_ok " HEAD), "forged");
	expect_suspicious(TRAIL_JOURNAL, "{\"__REALTIME_TIMESTAMP\":\"1\",\"SYSLOG_IDENTIFIER\":\"postern-shell\",\"MESSAGE\":\"event=command_allow " HEAD "\"}", "without _UID");
}

static void test_journal_shapes(void **state)
{
	(void)state;
	/* journald gives a message with control characters as bytes */
	expect_suspicious(TRAIL_JOURNAL,
		"{\"__REALTIME_TIMESTAMP\":\"1\",\"_UID\":\"0\",\"SYSLOG_IDENTIFIER\":\"postern-totp\",\"MESSAGE\":[101,118,101,110,116,61,120,10]}",
		"control character");
	expect_suspicious(TRAIL_JOURNAL, JOURNAL("0", "postern-totp", "/x", "event=totp_unlock " HEAD " admin=\\u2028"), "invisible");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":\"a\",\"MESSAGE\":\"b\",\"__REALTIME_TIMESTAMP\":\"1\"}", "not JSON");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":[\"a\",\"b\"],\"__REALTIME_TIMESTAMP\":\"1\"}", "MESSAGE");
	expect_suspicious(TRAIL_JOURNAL, "[1,2]", "not a JSON object");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":\"a\"", "not JSON");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":\"a\",\"__REALTIME_TIMESTAMP\":\"soon\"}", "__REALTIME_TIMESTAMP");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":\"a\",\"__REALTIME_TIMESTAMP\":\"1\",\"_UID\":[\"0\",\"1\"]}", "_UID");
	expect_suspicious(TRAIL_JOURNAL, "{\"MESSAGE\":\"a\",\"__REALTIME_TIMESTAMP\":\"1\",\"SYSLOG_IDENTIFIER\":\"a\\nb\"}", "control");
}

static void test_iso_times(void **state)
{
	char t[TIME_TEXT_MAX];
	int64_t us;

	(void)state;
	setenv("TZ", "UTC", 1);
	assert_int_equal(time_parse_iso("2026-12-03", 10, false, &us), 10);
	time_format_utc(us, t);
	assert_string_equal(t, "2026-12-03T00:00:00Z");
	assert_int_equal(time_parse_iso("2026-12-03", 10, true, &us), 10);
	time_format_utc(us, t);
	assert_string_equal(t, "2026-12-03T23:59:59Z");
	assert_int_equal(time_parse_iso("2026-12-03T06:30+02:00", 22, false, &us), 22);
	time_format_utc(us, t);
	assert_string_equal(t, "2026-12-03T04:30:00Z");
	assert_int_equal(time_parse_iso("2026-12-03 06:30:05Z", 20, false, &us), 20);
	assert_int_equal(time_parse_iso("2026-02-30", 10, false, &us), 0);
	assert_int_equal(time_parse_iso("2026-13-01", 10, false, &us), 0);
	assert_int_equal(time_parse_iso("yesterday", 9, false, &us), 0);
}

static void expect_relative(const char *text, bool end_of_day, const char *want)
{
	const time_t now = 1796305200;     /* 2026-12-03T13:40:00Z */
	char t[TIME_TEXT_MAX];
	int64_t us = -1;

	assert_true(time_parse_relative(text, now, end_of_day, &us));
	time_format_utc(us, t);
	assert_string_equal(t, want);
}

/* What `journalctl --since` users type; DEPLOY.md shows --since today. */
static void test_relative_times(void **state)
{
	int64_t us = 42;

	(void)state;
	setenv("TZ", "UTC", 1);
	expect_relative("today", false, "2026-12-03T00:00:00Z");
	expect_relative("today", true, "2026-12-03T23:59:59Z");
	expect_relative("yesterday", false, "2026-12-02T00:00:00Z");
	expect_relative("yesterday", true, "2026-12-02T23:59:59Z");
	expect_relative("tomorrow", false, "2026-12-04T00:00:00Z");
	expect_relative("now", false, "2026-12-03T13:40:00Z");
	expect_relative("-1h", false, "2026-12-03T12:40:00Z");
	expect_relative("-30min", false, "2026-12-03T13:10:00Z");
	expect_relative("-2d", false, "2026-12-01T13:40:00Z");
	expect_relative("-1w", false, "2026-11-26T13:40:00Z");
	expect_relative("-90s", false, "2026-12-03T13:38:30Z");
	/* Midnight is local midnight, as for an ISO date without a zone. */
	setenv("TZ", "Europe/Paris", 1);
	tzset();
	expect_relative("today", false, "2026-12-02T23:00:00Z");
	setenv("TZ", "UTC", 1);
	tzset();
	assert_false(time_parse_relative("Today", 0, false, &us));
	assert_false(time_parse_relative("-1", 0, false, &us));
	assert_false(time_parse_relative("1h", 0, false, &us));
	assert_false(time_parse_relative("-1y", 0, false, &us));
	assert_false(time_parse_relative("-h", 0, false, &us));
	assert_false(time_parse_relative("-1h ", 0, false, &us));
	assert_false(time_parse_relative("-99999999999h", 0, false, &us));
	assert_false(time_parse_relative("", 0, false, &us));
	assert_int_equal(us, 42);
}

/* One sshd line through a rules with memory, as postern-audit reads. */
static enum trail_verdict sshd_line(struct sshd_sessions *ss, enum trail_source src,
				    const char *line, struct trail_record *r, struct pst_err *why)
{
	struct trail_rules ru = rules();

	ru.sshd_tag = "postern-sshd";
	ru.sshd = ss;
	why->msg[0] = '\0';
	return trail_read_line(line, strlen(line), src, &ru, r, why);
}

static void expect_sshd(struct sshd_sessions *ss, const char *msg, const char *event,
			const char *user, const char *from, const char *key, const char *value)
{
	char line[1024];
	struct trail_record r;
	struct pst_err why;

	snprintf(line, sizeof(line), "Dec  3 06:56:40 vm postern-sshd[20817]: %s", msg);
	if (sshd_line(ss, TRAIL_SYSLOG, line, &r, &why) != TRAIL_RECORD)
		fail_msg("%s: %s", msg, why.msg);
	assert_string_equal(r.event, event);
	assert_string_equal(r.user, user);
	assert_string_equal(r.from, from);
	assert_string_equal(r.sid, "-");
	assert_int_equal(r.emitter, EMIT_SSHD);
	if (key != NULL)
		assert_string_equal(fields_get(&r.f, key), value);
	trail_record_free(&r);
}

static void expect_sshd_other(struct sshd_sessions *ss, const char *msg)
{
	char line[1024];
	struct trail_record r;
	struct pst_err why;

	snprintf(line, sizeof(line), "Dec  3 06:56:40 vm postern-sshd[20817]: %s", msg);
	if (sshd_line(ss, TRAIL_SYSLOG, line, &r, &why) != TRAIL_OTHER)
		fail_msg("taken as a record or suspicious: %s (%s)", msg, why.msg);
}

/* sshd's own refusals (real OpenSSH 9.2 lines, tests/audit/data/real-e2e.log). */
static void test_sshd_refusals(void **state)
{
	static struct sshd_sessions ss;
	struct trail_record r;
	struct pst_err why;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	expect_sshd_other(&ss, "Partial publickey for pte2e-maint from 127.0.0.1 port 54990 ssh2: ED25519 SHA256:akbR");
	expect_sshd(&ss, "Connection closed by authenticating user pte2e-maint 127.0.0.1 port 54990 [preauth]",
		    "sshd_auth_incomplete", "pte2e-maint", "127.0.0.1", "key", "SHA256:akbR");
	expect_sshd(&ss, "Disconnected from authenticating user bob 2001:db8::5 port 2 [preauth]",
		    "sshd_auth_incomplete", "bob", "2001:db8::5", "key", "-");
	expect_sshd(&ss, "Invalid user a from b from 192.0.2.9 port 4 from 192.0.2.7 port 50122",
		    "sshd_user_refused", "a from b from 192.0.2.9 port 4", "192.0.2.7", "reason", "no such user");
	expect_sshd(&ss, "User carol from 192.0.2.7 not allowed because none of user's groups are listed in AllowGroups",
		    "sshd_user_refused", "carol", "192.0.2.7", "reason",
		    "none of user's groups are listed in AllowGroups");
	expect_sshd(&ss, "Connection closed by 192.0.2.7 port 9 [preauth]", "sshd_preauth_disconnect", "-",
		    "192.0.2.7", "how", "closed");
	expect_sshd(&ss, "Timeout before authentication for 192.0.2.7 port 9", "sshd_preauth_disconnect", "-",
		    "192.0.2.7", "how", "timeout");
	/* The forward names no client: the monitor's lines and its child's pid do. */
	expect_sshd_other(&ss, "Accepted keyboard-interactive/pam for alice from 192.0.2.7 port 50122 ssh2");
	expect_sshd_other(&ss, "User child is on pid 22380");
	assert_int_equal(sshd_line(&ss, TRAIL_SYSLOG, "Dec  3 06:56:50 vm postern-sshd[22380]: refused local port forward: "
				   "originator 127.0.0.1 port 55062, target 127.0.0.1 port 45691", &r, &why), TRAIL_RECORD);
	assert_string_equal(r.event, "sshd_forward_refused");
	assert_string_equal(r.user, "alice");
	assert_string_equal(r.port, "50122");
	assert_string_equal(fields_get(&r.f, "target"), "127.0.0.1 port 45691");
	trail_record_free(&r);
	assert_int_equal(sshd_line(&ss, TRAIL_SYSLOG, "Dec  3 06:56:50 vm postern-sshd[22380]: subsystem request for "
				   "sftp by user alice failed, subsystem not found", &r, &why), TRAIL_RECORD);
	assert_string_equal(r.event, "sshd_subsystem_refused");
	assert_string_equal(r.from, "192.0.2.7");
	trail_record_free(&r);
	/* Not refusals, or not sshd's sentences exactly. */
	expect_sshd_other(&ss, "Disconnected from user alice 192.0.2.7 port 50122");
	expect_sshd_other(&ss, "Connection closed by 192.0.2.7 port 9");
	expect_sshd_other(&ss, "Connection closed by authenticating user alice 192.0.2.7 port x [preauth]");
	expect_sshd_other(&ss, "Invalid user alice from evil.example port 5");
	expect_sshd_other(&ss, "subsystem request for sftp by user alice failed");
	expect_sshd_other(&ss, "refused local port forward: originator 1 port 2");
	/* Other tags are not the postern sshd; "event=" under sshd's tag is forged. */
	assert_int_equal(sshd_line(&ss, TRAIL_SYSLOG, "Dec  3 06:56:50 vm sshd[1]: Connection closed by 192.0.2.7 port 9 [preauth]",
				   &r, &why), TRAIL_OTHER);
	assert_int_equal(sshd_line(&ss, TRAIL_SYSLOG, "Dec  3 06:56:50 vm postern-sshd[1]: event=sshd_preauth_disconnect "
				   "user=- from=1 port=2 sid=- how=closed", &r, &why), TRAIL_SUSPICIOUS);
	/* Raw or rsyslog-escaped control characters: sshd escapes its own. */
	assert_int_equal(sshd_line(&ss, TRAIL_SYSLOG, "Dec  3 06:56:50 vm postern-sshd[1]: Invalid user a#012b from 192.0.2.7 port 5",
				   &r, &why), TRAIL_SUSPICIOUS);
	assert_non_null(strstr(why.msg, "control character"));
	assert_int_equal(sshd_line(&ss, TRAIL_JOURNAL, "{\"MESSAGE\":\"Invalid user a\\u001bb from 192.0.2.7 port 5\","
				   "\"__REALTIME_TIMESTAMP\":\"1\",\"SYSLOG_IDENTIFIER\":\"postern-sshd\",\"_UID\":\"0\",\"_PID\":\"5\"}",
				   &r, &why), TRAIL_SUSPICIOUS);
	/* In the journal, only root's: sshd logs through its privileged monitor. */
	assert_int_equal(sshd_line(&ss, TRAIL_JOURNAL, "{\"MESSAGE\":\"Invalid user a from 192.0.2.7 port 5\","
				   "\"__REALTIME_TIMESTAMP\":\"1\",\"SYSLOG_IDENTIFIER\":\"postern-sshd\",\"_UID\":\"1000\",\"_PID\":\"5\"}",
				   &r, &why), TRAIL_SUSPICIOUS);
	assert_non_null(strstr(why.msg, "forged"));
	assert_int_equal(sshd_line(&ss, TRAIL_JOURNAL, "{\"MESSAGE\":\"Invalid user a from 192.0.2.7 port 5\","
				   "\"__REALTIME_TIMESTAMP\":\"1\",\"SYSLOG_IDENTIFIER\":\"postern-sshd\",\"_UID\":\"0\",\"_PID\":\"5\"}",
				   &r, &why), TRAIL_RECORD);
	assert_true(r.verified);
	trail_record_free(&r);
}

/*
 * OpenSSH 9.8 and later: every sshd's connections log as sshd-session
 * (sshd-auth for OpenSSH 10's pre-authentication process). The postern
 * sshd listens on 2222, the admins' sshd on 22; the port in each
 * connection's first line says whose it is.
 */
#define POSTERN_PORT 2222

static enum trail_verdict tagged_line(struct sshd_sessions *ss, bool ports, const char *tag,
				      long pid, const char *msg, struct trail_record *r)
{
	struct trail_rules ru = rules();
	struct pst_err why;
	char line[1024];

	ru.sshd_tag = "postern-sshd";
	ru.sshd = ss;
	ru.sshd_ports[0] = POSTERN_PORT;
	ru.sshd_nports = ports ? 1 : 0;
	snprintf(line, sizeof(line), "2026-12-03T06:56:40.5+00:00 vm %s[%ld]: %s", tag, pid, msg);
	why.msg[0] = '\0';
	return trail_read_line(line, strlen(line), TRAIL_SYSLOG, &ru, r, &why);
}

/* The line is read with --sshd-port 2222 and counted as event. */
static void expect_counted(struct sshd_sessions *ss, const char *tag, long pid, const char *msg,
			   const char *event, const char *user)
{
	struct trail_record r;

	if (tagged_line(ss, true, tag, pid, msg, &r) != TRAIL_RECORD)
		fail_msg("not counted: %s[%ld]: %s", tag, pid, msg);
	assert_string_equal(r.event, event);
	assert_string_equal(r.user, user);
	assert_int_equal(r.emitter, EMIT_SSHD);
	assert_int_equal(r.pid, pid);
	trail_record_free(&r);
}

static void expect_ignored(struct sshd_sessions *ss, const char *tag, long pid, const char *msg)
{
	struct trail_record r;

	if (tagged_line(ss, true, tag, pid, msg, &r) != TRAIL_OTHER)
		fail_msg("not ignored: %s[%ld]: %s", tag, pid, msg);
}

static size_t sessions_in_use(const struct sshd_sessions *ss)
{
	size_t i, n = 0;

	for (i = 0; i < SSHD_SESSIONS_MAX; i++)
		n += ss->s[i].used;
	return n;
}

#define CONN_POSTERN(a, p) "Connection from " a " port " p " on 192.0.2.1 port 2222 rdomain \"\""
#define CONN_ADMIN(a, p) "Connection from " a " port " p " on 192.0.2.1 port 22 rdomain \"\""

static void test_sshd_session_by_port(void **state)
{
	static struct sshd_sessions ss;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	/* A key-only login to the postern sshd: counted, with its key. */
	expect_ignored(&ss, "sshd-session", 4001, CONN_POSTERN("203.0.113.5", "51234"));
	expect_ignored(&ss, "sshd-session", 4001, "Partial publickey for alice from 203.0.113.5 port 51234 ssh2: ED25519 SHA256:akbR");
	expect_counted(&ss, "sshd-session", 4001, "Connection closed by authenticating user alice 203.0.113.5 port 51234 [preauth]",
		       "sshd_auth_incomplete", "alice");
	/* The same refusals at the admins' sshd: not postern's business. */
	expect_ignored(&ss, "sshd-session", 4002, CONN_ADMIN("198.51.100.7", "6000"));
	expect_ignored(&ss, "sshd-session", 4002, "Invalid user admin from 198.51.100.7 port 6000");
	expect_ignored(&ss, "sshd-session", 4002, "Connection closed by authenticating user root 198.51.100.7 port 6000 [preauth]");
	expect_ignored(&ss, "sshd-session", 4003, CONN_ADMIN("198.51.100.8", "6001"));
	expect_ignored(&ss, "sshd-session", 4003, "Connection closed by 198.51.100.8 port 6001 [preauth]");
	/* The postern sshd's scanners and unknown users are counted. */
	expect_ignored(&ss, "sshd-session", 4004, CONN_POSTERN("2001:db8::9", "40000"));
	expect_counted(&ss, "sshd-session", 4004, "Invalid user oracle from 2001:db8::9 port 40000",
		       "sshd_user_refused", "oracle");
	/* Its last line is no refusal of its own, but ends the connection. */
	expect_ignored(&ss, "sshd-session", 4004, "Connection closed by invalid user oracle 2001:db8::9 port 40000 [preauth]");
	/* Without a routing domain (not Linux) the line ends at the port. */
	expect_ignored(&ss, "sshd-session", 4005, "Connection from 203.0.113.6 port 1 on 192.0.2.1 port 2222");
	expect_counted(&ss, "sshd-session", 4005, "Connection closed by 203.0.113.6 port 1 [preauth]",
		       "sshd_preauth_disconnect", "-");
	/* Each connection's last line freed its entry. */
	assert_int_equal(sessions_in_use(&ss), 0);
}

static void test_sshd_session_pid_reuse(void **state)
{
	static struct sshd_sessions ss;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	/* An admin connection whose last line was lost, then the pid again
	 * for a postern one: the new first line decides. */
	expect_ignored(&ss, "sshd-session", 5001, CONN_ADMIN("198.51.100.7", "6000"));
	expect_ignored(&ss, "sshd-session", 5001, CONN_POSTERN("203.0.113.5", "51234"));
	expect_counted(&ss, "sshd-session", 5001, "Invalid user x from 203.0.113.5 port 51234",
		       "sshd_user_refused", "x");
	/* And the other way round. */
	expect_ignored(&ss, "sshd-session", 5001, CONN_ADMIN("198.51.100.7", "6002"));
	expect_ignored(&ss, "sshd-session", 5001, "Invalid user y from 198.51.100.7 port 6002");
	/* A connection that ended: the pid's later lines are of no known
	 * connection until its next first line. */
	expect_ignored(&ss, "sshd-session", 5001, "Connection closed by 198.51.100.7 port 6002 [preauth]");
	assert_int_equal(sessions_in_use(&ss), 0);
	expect_ignored(&ss, "sshd-session", 5001, "Invalid user z from 203.0.113.5 port 51234");
}

/* A long log stays in a fixed table: entries are freed as connections
 * end, and connections whose end was never logged give way to newer ones,
 * those not logged in first. */
static void test_sshd_session_memory_is_flat(void **state)
{
	static struct sshd_sessions ss;
	struct trail_record r;
	long pid;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	/* A maintainer logged in, for the whole log. */
	expect_ignored(&ss, "sshd-session", 9001, CONN_POSTERN("203.0.113.5", "51234"));
	expect_ignored(&ss, "sshd-session", 9001, "Accepted publickey for alice from 203.0.113.5 port 51234 ssh2: ED25519 SHA256:akbR");
	expect_ignored(&ss, "sshd-session", 9001, "User child is on pid 9002");
	for (pid = 10000; pid < 13000; pid++) {
		expect_ignored(&ss, "sshd-session", pid, pid % 2 ? CONN_ADMIN("198.51.100.7", "6000")
								 : CONN_POSTERN("203.0.113.5", "6000"));
		assert_int_equal(tagged_line(&ss, true, "sshd-session", pid,
					     "Connection closed by 203.0.113.5 port 6000 [preauth]", &r),
				 pid % 2 ? TRAIL_OTHER : TRAIL_RECORD);
		if (pid % 2 == 0)
			trail_record_free(&r);
	}
	/* Scanners' usual last lines end their connections too. */
	for (pid = 13000; pid < 14000; pid++) {
		expect_ignored(&ss, "sshd-session", pid, CONN_ADMIN("198.51.100.7", "6000"));
		expect_ignored(&ss, "sshd-session", pid, pid % 3 == 0 ? "Unable to negotiate with 198.51.100.7 port 6000: "
			       "no matching host key type found. Their offer: ssh-rsa [preauth]"
			       : pid % 3 == 1 ? "banner exchange: Connection from 198.51.100.7 port 6000: invalid format"
			       : "Connection closed by 198.51.100.7 port 6000");
	}
	assert_int_equal(sessions_in_use(&ss), 2);
	for (pid = 20000; pid < 21000; pid++)
		expect_ignored(&ss, "sshd-session", pid, CONN_POSTERN("203.0.113.5", "6000"));
	assert_int_equal(sessions_in_use(&ss), SSHD_SESSIONS_MAX);
	/* The newest are still known, the oldest are not. */
	expect_counted(&ss, "sshd-session", 20999, "Connection closed by 203.0.113.5 port 6000 [preauth]",
		       "sshd_preauth_disconnect", "-");
	expect_ignored(&ss, "sshd-session", 20000, "Connection closed by 203.0.113.5 port 6000 [preauth]");
	/* The logged-in connection outlived the flood of those never logged in. */
	expect_counted(&ss, "sshd-session", 9002, "subsystem request for sftp by user alice failed, subsystem not found",
		       "sshd_subsystem_refused", "alice");
}

static void test_sshd_session_unknown_port(void **state)
{
	static struct sshd_sessions ss;
	struct trail_record r;
	const char *refusal = "Invalid user admin from 198.51.100.7 port 6000";

	(void)state;
	memset(&ss, 0, sizeof(ss));
	/* No first line (LogLevel INFO, or rotated away): with --sshd-port,
	 * not counted; OpenSSH 10's sshd-auth lines reach syslog through
	 * their sshd-session, so one under its own pid never has one. */
	expect_ignored(&ss, "sshd-session", 6001, refusal);
	expect_ignored(&ss, "sshd-auth", 6002, refusal);
	/* Without --sshd-port, every sshd-session line is read. */
	assert_int_equal(tagged_line(&ss, false, "sshd-session", 6001, refusal, &r), TRAIL_RECORD);
	assert_string_equal(r.event, "sshd_user_refused");
	trail_record_free(&r);
	assert_int_equal(tagged_line(&ss, false, "sshd-auth", 6002, refusal, &r), TRAIL_RECORD);
	trail_record_free(&r);
	assert_int_equal(tagged_line(&ss, false, "sshd-session", 6003, CONN_ADMIN("198.51.100.7", "1"), &r), TRAIL_OTHER);
	assert_int_equal(tagged_line(&ss, false, "sshd-session", 6003, "Connection closed by 198.51.100.7 port 1 [preauth]", &r),
			 TRAIL_RECORD);
	trail_record_free(&r);
	assert_int_equal(tagged_line(&ss, false, "sshd", 6004, refusal, &r), TRAIL_OTHER);
	/* The postern sshd's own tag (before OpenSSH 9.8, and its listener
	 * after) is always its, port or not. */
	expect_counted(&ss, "postern-sshd", 6005, refusal, "sshd_user_refused", "admin");
	expect_ignored(&ss, "postern-sshd", 6006, CONN_ADMIN("198.51.100.7", "6001"));
	expect_counted(&ss, "postern-sshd", 6006, "Connection closed by 198.51.100.7 port 6001 [preauth]",
		       "sshd_preauth_disconnect", "-");
	/* Not a first line exactly: nothing is remembered. */
	expect_ignored(&ss, "sshd-session", 6007, "Connection from 203.0.113.5 port 1 on 192.0.2.1 port 2222 rdomain \"");
	expect_ignored(&ss, "sshd-session", 6008, "Connection from 203.0.113.5 port 1 on 192.0.2.1 port x2222");
	assert_int_equal(sessions_in_use(&ss), 0);
	expect_ignored(&ss, "sshd-session", 6007, refusal);
}

/* After authentication the user child logs under its own pid; the
 * monitor's "User child is on pid N" carries the connection over. */
static void test_sshd_session_user_child(void **state)
{
	static struct sshd_sessions ss;
	struct trail_record r;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	expect_ignored(&ss, "sshd-session", 7001, CONN_POSTERN("203.0.113.5", "51234"));
	expect_ignored(&ss, "sshd-session", 7001, "Accepted keyboard-interactive/pam for alice from 203.0.113.5 port 51234 ssh2");
	expect_ignored(&ss, "sshd-session", 7001, "User child is on pid 7002");
	assert_int_equal(tagged_line(&ss, true, "sshd-session", 7002, "refused local port forward: originator 127.0.0.1 port 5, "
				     "target 127.0.0.1 port 25", &r), TRAIL_RECORD);
	assert_string_equal(r.user, "alice");
	assert_string_equal(r.from, "203.0.113.5");
	assert_string_equal(r.port, "51234");
	trail_record_free(&r);
	expect_counted(&ss, "sshd-session", 7002, "subsystem request for sftp by user alice failed, subsystem not found",
		       "sshd_subsystem_refused", "alice");
	/* The same at the admins' sshd. */
	expect_ignored(&ss, "sshd-session", 7101, CONN_ADMIN("198.51.100.7", "6000"));
	expect_ignored(&ss, "sshd-session", 7101, "Accepted publickey for root from 198.51.100.7 port 6000 ssh2: ED25519 SHA256:x");
	expect_ignored(&ss, "sshd-session", 7101, "User child is on pid 7102");
	expect_ignored(&ss, "sshd-session", 7102, "subsystem request for sftp by user root failed, subsystem not found");
	/* The child's last line ends the connection: both entries go. */
	expect_ignored(&ss, "sshd-session", 7002, "Disconnected from user alice 203.0.113.5 port 51234");
	expect_ignored(&ss, "sshd-session", 7102, "Closing connection to 198.51.100.7 port 6000");
	assert_int_equal(sessions_in_use(&ss), 0);
}

/* OpenSSH 9.8 and later: the grace timeout is the listener's line, under
 * its own name, about the connection's pid. */
static void test_sshd_listener_timeout(void **state)
{
	static struct sshd_sessions ss;
	struct trail_record r;

	(void)state;
	memset(&ss, 0, sizeof(ss));
	expect_ignored(&ss, "sshd-session", 8002, CONN_POSTERN("203.0.113.5", "51234"));
	assert_int_equal(tagged_line(&ss, true, "postern-sshd", 8001, "Timeout before authentication for connection "
				     "from 203.0.113.5 to 192.0.2.1, pid = 8002", &r), TRAIL_RECORD);
	assert_string_equal(r.event, "sshd_preauth_disconnect");
	assert_string_equal(r.from, "203.0.113.5");
	assert_string_equal(r.port, "-");
	assert_string_equal(fields_get(&r.f, "how"), "timeout");
	trail_record_free(&r);
	assert_int_equal(sessions_in_use(&ss), 0);
	expect_counted(&ss, "postern-sshd", 8001, "Timeout before authentication for connection from 2001:db8::1 to "
		       "2001:db8::2, pid = 8003 (early)", "sshd_preauth_disconnect", "-");
	/* The admins' listener: another tag, not read. */
	expect_ignored(&ss, "sshd", 900, "Timeout before authentication for connection from 203.0.113.5 to 192.0.2.1, pid = 8004");
	expect_ignored(&ss, "postern-sshd", 8001, "Timeout before authentication for connection from 203.0.113.5 to 192.0.2.1, pid = x");
	expect_ignored(&ss, "postern-sshd", 8001, "Timeout before authentication for connection from 203.0.113.5 to 192.0.2.1, pid = 8 junk");
}

/* In the journal, only root's lines tell which connection a pid serves. */
static void test_sshd_session_journal(void **state)
{
	static struct sshd_sessions ss;
	struct trail_rules ru = rules();
	struct trail_record r;
	struct pst_err why;
	const char *lines[] = {
		JOURNAL("0", "sshd-session", "/usr/lib/openssh/sshd-session",
			"Connection from 203.0.113.5 port 51234 on 192.0.2.1 port 2222 rdomain \\\"\\\""),
		JOURNAL("1000", "sshd-session", "/usr/bin/logger",
			"Connection from 203.0.113.5 port 51234 on 192.0.2.1 port 22 rdomain \\\"\\\""),
		JOURNAL("0", "sshd-session", "/usr/lib/openssh/sshd-session", "Invalid user x from 203.0.113.5 port 51234"),
	};

	(void)state;
	memset(&ss, 0, sizeof(ss));
	ru.sshd_tag = "postern-sshd";
	ru.sshd = &ss;
	ru.sshd_ports[0] = POSTERN_PORT;
	ru.sshd_nports = 1;
	assert_int_equal(trail_read_line(lines[0], strlen(lines[0]), TRAIL_JOURNAL, &ru, &r, &why), TRAIL_OTHER);
	assert_int_equal(trail_read_line(lines[1], strlen(lines[1]), TRAIL_JOURNAL, &ru, &r, &why), TRAIL_OTHER);
	assert_int_equal(trail_read_line(lines[2], strlen(lines[2]), TRAIL_JOURNAL, &ru, &r, &why), TRAIL_RECORD);
	assert_string_equal(r.event, "sshd_user_refused");
	assert_true(r.verified);
	trail_record_free(&r);
}

static void test_traditional_year_rule(void **state)
{
	struct year_rule y = { .now = 1767225600 };     /* 2026-01-01T00:00:00Z */
	char t[TIME_TEXT_MAX];
	int64_t us;

	(void)state;
	setenv("TZ", "UTC", 1);
	assert_true(time_parse_traditional("Dec 31 23:00:00", &y, &us));
	time_format_utc(us, t);
	assert_string_equal(t, "2025-12-31T23:00:00Z");
	assert_true(time_parse_traditional("Jan  1 00:10:00", &y, &us));
	time_format_utc(us, t);
	assert_string_equal(t, "2026-01-01T00:10:00Z");
	y.fixed = true;
	y.year = 2024;
	assert_true(time_parse_traditional("Feb 29 12:00:00", &y, &us));
	assert_false(time_parse_traditional("Feb 30 12:00:00", &y, &us));
	assert_false(time_parse_traditional("Foo  1 12:00:00", &y, &us));
}

static void test_event_table(void **state)
{
	(void)state;
	assert_non_null(event_find("install_ok"));
	assert_null(event_find("install"));
	assert_int_equal(emitter_of_tag("postern-shell"), EMIT_SHELL);
	assert_int_equal(emitter_of_tag("pam_postern"), 0);
	assert_true(event_find("delete")->emitters & EMIT_SHELL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syslog_layouts),
		cmocka_unit_test(test_syslog_suspicions),
		cmocka_unit_test(test_not_ours_is_ignored),
		cmocka_unit_test(test_journal_sender_check),
		cmocka_unit_test(test_journal_shapes),
		cmocka_unit_test(test_iso_times),
		cmocka_unit_test(test_relative_times),
		cmocka_unit_test(test_sshd_refusals),
		cmocka_unit_test(test_sshd_session_by_port),
		cmocka_unit_test(test_sshd_session_pid_reuse),
		cmocka_unit_test(test_sshd_session_memory_is_flat),
		cmocka_unit_test(test_sshd_session_unknown_port),
		cmocka_unit_test(test_sshd_session_user_child),
		cmocka_unit_test(test_sshd_listener_timeout),
		cmocka_unit_test(test_sshd_session_journal),
		cmocka_unit_test(test_traditional_year_rule),
		cmocka_unit_test(test_event_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
