/* The events postern-audit believes and who may emit each; an event missing
 * here is never counted, so it must match docs/AUDIT.md's table. */
#include "events.h"

#include <string.h>

#define EMIT_ALL (EMIT_PAM | EMIT_SHELL | EMIT_INSTALLD | EMIT_TOTP | EMIT_POLICY | EMIT_CI)

/* Keep in step with the table in docs/AUDIT.md; tests/audit/check-schema.sh
 * compares the two. */
static const struct event_info events[] = {
	{ "login_ok", EMIT_PAM },
	{ "login_fail", EMIT_PAM },
	{ "login_skip", EMIT_PAM },
	{ "lockout", EMIT_PAM },
	{ "invite_login", EMIT_PAM },
	{ "invite_enrolled", EMIT_PAM },
	{ "command_allow", EMIT_SHELL },
	{ "command_deny", EMIT_SHELL },
	{ "session_end", EMIT_SHELL },
	{ "upload_done", EMIT_SHELL },
	{ "install_ok", EMIT_INSTALLD },
	{ "install_refused", EMIT_INSTALLD },
	{ "delete", EMIT_INSTALLD | EMIT_SHELL },
	{ "delete_refused", EMIT_INSTALLD },
	{ "request_invalid", EMIT_INSTALLD },
	{ "connection_refused", EMIT_INSTALLD },
	{ "ci_refused", EMIT_CI },
	{ "doap_change", EMIT_POLICY },
	{ "policy_error", EMIT_ALL },
	{ "totp_enroll", EMIT_TOTP },
	{ "totp_revoke", EMIT_TOTP },
	{ "totp_unlock", EMIT_TOTP },
	{ "totp_recovery_reset", EMIT_TOTP },
	{ "sk_enroll", EMIT_TOTP },
	{ "sk_revoke", EMIT_TOTP },
	{ "sk_require", EMIT_TOTP },
	{ "invite_issue", EMIT_TOTP },
	{ "invite_revoke", EMIT_TOTP },
	{ "sshd_auth_incomplete", EMIT_SSHD },
	{ "sshd_user_refused", EMIT_SSHD },
	{ "sshd_forward_refused", EMIT_SSHD },
	{ "sshd_subsystem_refused", EMIT_SSHD },
	{ "sshd_preauth_disconnect", EMIT_SSHD },
};

static const struct {
	const char *tag;
	unsigned emitter;
} tags[] = {
	{ "pam_postern", EMIT_PAM },
	{ "postern-shell", EMIT_SHELL },
	{ "postern-installd", EMIT_INSTALLD },
	{ "postern-totp", EMIT_TOTP },
	{ "postern-policy", EMIT_POLICY },
	{ "postern-ci", EMIT_CI },
};

const struct event_info *event_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (strcmp(events[i].name, name) == 0)
			return &events[i];
	}
	return NULL;
}

const struct event_info *event_table(size_t *count)
{
	*count = sizeof(events) / sizeof(events[0]);
	return events;
}

unsigned emitter_of_tag(const char *tag)
{
	size_t i;

	/* pam_postern has no tag of its own: it speaks inside sshd's lines. */
	for (i = 1; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (strcmp(tags[i].tag, tag) == 0)
			return tags[i].emitter;
	}
	return 0;
}

const char *emitter_name(unsigned emitter)
{
	size_t i;

	/* Not in tags[]: sshd never writes "event=" lines, so one under its
	 * tag is a forgery, not a record. */
	if (emitter == EMIT_SSHD)
		return "sshd";
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (tags[i].emitter == emitter)
			return tags[i].tag;
	}
	return "?";
}
