/*
 * gen-trail syslog [PROGRAM [USER]] | gen-trail journal DAEMON_UID
 *
 * Plays a small release day through the real common/audit.c, so the test
 * trail has exactly the escaping and session ids the components produce:
 *   syslog   audit_emit() to syslog(3) under the tag of each program (and,
 *            for pam_postern, through a writer that logs the way
 *            pam_syslog() does: "pam_postern(sshd:auth): " inside sshd's
 *            lines). Run it under tests/common/syslog-capture. With
 *            PROGRAM (pam_postern, postern-shell, ...) only that program's
 *            records, and with USER only those about USER: so each part can
 *            be sent by the uid that program runs as, for a real journald.
 *   journal  the same records as `journalctl -o json` lines on stdout, each
 *            with the _UID its program runs as (root for sshd and the admin
 *            tools, DAEMON_UID for postern-installd, the maintainer's own
 *            uid for postern-shell), plus entries forged by other uids.
 *
 * The scenario is described for the checker in scenario.expected.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <jansson.h>

#include "audit.h"
#include "events.h"

#define MAX_PAIRS 16

static int journal_mode;
static unsigned only_emitter;
static const char *only_user;
static long daemon_uid;
static long long clock_us = 1764743665000000LL;   /* 2025-12-03T06:34:25Z */

/* The test's users exist (in its private /etc); a uid is never assumed. */
static long uid_of(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (pw == NULL) {
		fprintf(stderr, "gen-trail: no user %s (create the test users first)\n", user);
		exit(2);
	}
	return (long)pw->pw_uid;
}

static void journal_line(const char *tag, long uid, const char *exe, const char *msg)
{
	json_t *o = json_object();
	char num[32];

	clock_us += 1500000;
	snprintf(num, sizeof(num), "%lld", clock_us);
	json_object_set_new(o, "__REALTIME_TIMESTAMP", json_string(num));
	json_object_set_new(o, "_HOSTNAME", json_string("release"));
	json_object_set_new(o, "_PID", json_string("4242"));
	snprintf(num, sizeof(num), "%ld", uid);
	json_object_set_new(o, "_UID", json_string(num));
	json_object_set_new(o, "_EXE", json_string(exe));
	json_object_set_new(o, "SYSLOG_IDENTIFIER", json_string(tag));
	json_object_set_new(o, "MESSAGE", json_string(msg));
	json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(o);
}

/*
 * How postern-installd logs for a client of session s: its own from=local
 * and connection id, the client's claim in client_from/port/session.
 */
static const struct audit_session *daemon_view(const struct audit_session *s,
					       struct audit_session *d)
{
	audit_session_init(d, s->user, NULL);
	memcpy(d->client_from, s->from, sizeof(d->client_from));
	memcpy(d->client_port, s->port, sizeof(d->client_port));
	memcpy(d->client_session, s->sid, sizeof(d->client_session));
	return d;
}

/* One record from program `emitter` (enum emitter), as that program would log it. */
static void emit(unsigned emitter, int priority, const char *event,
		 const struct audit_session *s, const char *const kv[])
{
	char rec[AUDIT_RECORD_MAX], msg[AUDIT_RECORD_MAX + 64];
	struct audit_session daemon;

	if ((only_emitter != 0 && emitter != only_emitter) ||
	    (only_user != NULL && strcmp(only_user, s->user) != 0))
		return;
	if (emitter == EMIT_INSTALLD)
		s = daemon_view(s, &daemon);
	if (!journal_mode) {
		if (emitter == EMIT_PAM) {
			openlog("sshd", LOG_PID, LOG_AUTHPRIV);
			audit_format(rec, sizeof(rec), event, s, kv);
			syslog(LOG_AUTHPRIV | priority, "pam_postern(sshd:auth): %s", rec);
		} else {
			openlog(emitter_name(emitter), LOG_PID, LOG_AUTHPRIV);
			audit_emitv(priority, event, s, kv);
		}
		closelog();
		return;
	}
	audit_format(rec, sizeof(rec), event, s, kv);
	switch (emitter) {
	case EMIT_PAM:
		snprintf(msg, sizeof(msg), "pam_postern(sshd:auth): %s", rec);
		journal_line("sshd", 0, "/usr/sbin/sshd", msg);
		break;
	case EMIT_SHELL:
		journal_line("postern-shell", uid_of(s->user), "/usr/bin/postern-shell", rec);
		break;
	case EMIT_INSTALLD:
		journal_line("postern-installd", daemon_uid, "/usr/sbin/postern-installd", rec);
		break;
	default:
		journal_line(emitter_name(emitter), 0, "/usr/sbin/postern-totp", rec);
		break;
	}
}

#define EMIT(who, prio, ev, s, ...) \
	emit(who, prio, ev, s, (const char *const[]){ __VA_ARGS__, NULL })

static void alice_releases_gtk(void)
{
	struct audit_session s;

	audit_session_init(&s, "ptau-alice", "192.0.2.7 50122 198.51.100.1 22");
	EMIT(EMIT_PAM, LOG_NOTICE, "login_fail", &s, "service", "sshd", "reason", "bad_code", "key", "SHA256:abc", "failures", "1");
	EMIT(EMIT_PAM, LOG_INFO, "login_ok", &s, "service", "sshd", "method", "totp", "key", "SHA256:abc", "step", "58824788");
	EMIT(EMIT_SHELL, LOG_INFO, "command_allow", &s, "command", "rsync --server -logDtpre.iLsfxCIvu . incoming/", "name", "rsync", "mode", "forced");
	EMIT(EMIT_SHELL, LOG_INFO, "upload_done", &s, "status", "ok", "exit", "0", "files", "gtk-4.14.0.tar.xz");
	EMIT(EMIT_SHELL, LOG_INFO, "command_allow", &s, "command", "install-module gtk-4.14.0.tar.xz", "name", "install-module", "mode", "forced");
	EMIT(EMIT_INSTALLD, LOG_INFO, "install_ok", &s, "module", "gtk", "version", "4.14.0", "file", "gtk-4.14.0.tar.xz",
	     "sha256", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "maintainer", "yes",
	     "basis", "maintainer", "dir", "sources/gtk/4.14", "forced", "no", "peer_uid", "1001", "peer_pid", "777",
	     "signed", "yes", "signer", "6A1442B28B091BAB9EDA8075C254AD59A4E84C8B");
	/* a hostile command line: a newline and a fake record must stay inside the value */
	EMIT(EMIT_SHELL, LOG_NOTICE, "command_deny", &s, "command", "ls\nevent=install_ok user=ptau-alice module=evil \"\\\xff\xe2\x80\xae",
	     "mode", "forced", "reason", "only rsync, install-module, list, delete-own and help are available");
	EMIT(EMIT_SHELL, LOG_INFO, "session_end", &s, "name", "install-module", "status", "0");
}

static void bob_uploads_to_open_module(void)
{
	struct audit_session s;

	audit_session_init(&s, "ptau-bob", "2001:db8::5 41000 2001:db8::1 22");
	EMIT(EMIT_PAM, LOG_INFO, "login_ok", &s, "service", "sshd", "method", "recovery", "key", "SHA256:def", "step", "-");
	EMIT(EMIT_SHELL, LOG_INFO, "command_allow", &s, "command", "install-module glib-2.80.1.tar.xz", "name", "install-module", "mode", "login_shell");
	EMIT(EMIT_INSTALLD, LOG_INFO, "install_ok", &s, "module", "glib", "version", "2.80.1", "file", "glib-2.80.1.tar.xz",
	     "sha256", "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752", "maintainer", "no",
	     "basis", "open", "dir", "sources/glib/2.80", "forced", "no", "peer_uid", "1002", "peer_pid", "778",
	     "signed", "no");
	EMIT(EMIT_SHELL, LOG_INFO, "command_allow", &s, "command", "install-module gtk-4.14.0.tar.xz", "name", "install-module", "mode", "login_shell");
	EMIT(EMIT_INSTALLD, LOG_NOTICE, "install_refused", &s, "file", "gtk-4.14.0.tar.xz", "module", "gtk", "version", "4.14.0",
	     "reason", "version 4.14.0 of gtk is already released (use a new version number)", "peer_uid", "1002", "peer_pid", "779", "dry_run", "no");
	EMIT(EMIT_SHELL, LOG_NOTICE, "command_deny", &s, "command", "=cmd|' /C calc'!A0", "mode", "login_shell", "reason", "unknown command");
	/* a name a spreadsheet would run as a formula */
	EMIT(EMIT_SHELL, LOG_INFO, "delete", &s, "file", "=cmd|' /C calc'!A0", "module", "-", "version", "-", "kind", "pending", "attic", "-");
}

static void mallory_is_locked_out(void)
{
	struct audit_session s;

	audit_session_init(&s, "ptau-mallory", "198.51.100.9 60001 198.51.100.1 22");
	EMIT(EMIT_PAM, LOG_NOTICE, "login_fail", &s, "service", "sshd", "reason", "bad_code", "key", "SHA256:ghi", "failures", "1");
	EMIT(EMIT_PAM, LOG_NOTICE, "login_fail", &s, "service", "sshd", "reason", "replay", "key", "SHA256:ghi", "failures", "2");
	EMIT(EMIT_PAM, LOG_NOTICE, "lockout", &s, "service", "sshd", "failures", "3", "until", "2025-12-03T06:50:00Z");
}

static void admin_work(void)
{
	struct audit_session s;

	audit_session_init(&s, "ptau-alice", NULL);
	EMIT(EMIT_TOTP, LOG_INFO, "totp_enroll", &s, "admin", "root", "algorithm", "SHA1", "digits", "6", "keys", "1", "replaced", "no");
	audit_session_init(&s, "ptau-mallory", NULL);
	EMIT(EMIT_TOTP, LOG_INFO, "totp_unlock", &s, "admin", "root");
}

/* What other local users can put into the journal: they cannot choose _UID
 * or _EXE. Mallory, a local user (uid looked up), tries both. */
static void journal_forgeries(void)
{
	struct audit_session s;
	char rec[AUDIT_RECORD_MAX];
	const char *install[] = { "module", "gtk", "version", "9.9", "file", "gtk-9.9.tar.xz", "maintainer", "yes", NULL };
	const char *command[] = { "command", "install-module gtk-9.9.tar.xz", "name", "install-module", "mode", "forced", NULL };

	audit_session_init(&s, "ptau-alice", "203.0.113.66 1234 198.51.100.1 22");
	audit_format(rec, sizeof(rec), "install_ok", &s, install);
	journal_line("postern-installd", uid_of("ptau-mallory"), "/usr/bin/logger", rec);
	audit_format(rec, sizeof(rec), "command_allow", &s, command);
	journal_line("postern-shell", uid_of("ptau-mallory"), "/usr/bin/logger", rec);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "journal") == 0) {
		journal_mode = 1;
		daemon_uid = atol(argv[2]);
	} else if (argc >= 2 && argc <= 4 && strcmp(argv[1], "syslog") == 0) {
		if (argc >= 3 && (only_emitter = strcmp(argv[2], "pam_postern") == 0 ?
				  EMIT_PAM : emitter_of_tag(argv[2])) == 0) {
			fprintf(stderr, "gen-trail: %s: not a postern program\n", argv[2]);
			return 2;
		}
		only_user = argc == 4 ? argv[3] : NULL;
	} else {
		fprintf(stderr, "usage: gen-trail syslog [PROGRAM [USER]] | gen-trail journal DAEMON_UID\n");
		return 2;
	}
	alice_releases_gtk();
	bob_uploads_to_open_module();
	mallory_is_locked_out();
	admin_work();
	if (journal_mode)
		journal_forgeries();
	return fflush(stdout) == 0 ? 0 : 1;
}
