/*
 * postern-shell: the login shell of maintainers on the release server.
 *
 * Design note. This program stands between an authenticated but untrusted
 * client and the machine.
 * MUST: take the command only from the source its mode trusts
 * (invocation.c); decide with shell_dispatch() and nothing else; refuse
 * root; refuse when the loader may already have been tampered with; fail
 * closed on any error, a broken policy included; run nothing for a
 * connection that pam_postern did not admit (common/login_proof.h); write exactly one
 * command_allow or command_deny record before acting and a session_end
 * record after; give rrsync an environment built from nothing.
 * MUST NOT: run a shell, interpret any shell syntax, read a configuration
 * path from the environment or the command line, or keep fds it inherited.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "audit.h"
#include "audit_delivery.h"
#include "build_config.h"
#include "dispatch.h"
#include "enrol.h"
#include "env.h"
#include "help.h"
#include "incoming.h"
#include "installd_client.h"
#include "invocation.h"
#include "login_proof.h"
#include "incoming_quota.h"
#include "policy.h"
#include "rsync_args.h"
#include "spawn.h"
#include "text.h"
#include "upload.h"

#define PROG "postern-shell"
#define ACCOUNT_FIELD_MAX 4096

struct shell_ctx {
	struct shell_inherited in;
	struct audit_session s;
	struct shell_invocation inv;
	struct shell_decision d;
	struct policy *policy;
	char user[ACCOUNT_FIELD_MAX];
	char home[ACCOUNT_FIELD_MAX];
	char login_shell[ACCOUNT_FIELD_MAX];
	uid_t uid;
	int incoming_fd;
	bool invoked;          /* the invocation was understood: inv is valid */
	bool interactive;
	bool proof_checked;
	enum login_proof_verdict proof;
	struct login_proof proof_record;   /* valid when proof is LOGIN_PROOF_VALID */
	struct pst_err refusal;
};

/* stdin, stdout and stderr must be open, so that no file we open later
 * becomes fd 2 and receives messages meant for the client. */
static void stdio_ensure_open(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", O_RDWR) != fd)
			_exit(1); /* fail safe */
	}
}

static bool account_load(struct shell_ctx *c)
{
	struct passwd *pw;

	c->uid = getuid();
	errno = 0;
	pw = getpwuid(c->uid);
	if (pw == NULL)
		return pst_refuse(&c->refusal, "uid %lu has no account name; refused", (unsigned long)c->uid);
	if (!str_copy(c->user, sizeof(c->user), pw->pw_name) ||
	    !str_copy(c->home, sizeof(c->home), pw->pw_dir) ||
	    !str_copy(c->login_shell, sizeof(c->login_shell), pw->pw_shell))
		return pst_refuse(&c->refusal, "the account entry of uid %lu is too long; refused",
				  (unsigned long)c->uid);
	return true;
}

static bool policy_refused(struct shell_ctx *c, const struct pst_err *e)
{
	policy_free(c->policy);
	c->policy = NULL;
	audit_emit(LOG_NOTICE, "policy_error", &c->s, "file", POSTERN_CONFIG_FILE,
		   "error", e->msg, NULL);
	return pst_refuse(&c->refusal, "the release policy cannot be loaded (%s); nothing is allowed until an administrator fixes it",
			  e->msg);
}

/* postern.yaml; the generated DOAP module list waits for modules_ready(). */
static bool policy_ready(struct shell_ctx *c)
{
	struct pst_err e = { "" };

	if (policy_load_deferred(POSTERN_CONFIG_FILE, &c->policy, &e) == 0)
		return true;
	return policy_refused(c, &e);
}

/* install-module, list, delete-own and help (and the help shown to an
 * interactive login) need the module list; an rsync upload decides from
 * paths alone, a refused command from its words. A broken list refuses
 * the commands that need it as a broken postern.yaml does. */
static bool modules_ready(struct shell_ctx *c)
{
	struct pst_err e = { "" };

	if (policy_load_modules(c->policy, &e) == 0)
		return true;
	return policy_refused(c, &e);
}

/* pam_postern's word that this connection passed the second factor: the
 * PAM service sshd runs is sshd's configuration, not ours to trust. */
static bool login_proven(struct shell_ctx *c)
{
	struct pst_err why = { "" };

	c->proof = login_proof_check(policy_settings(c->policy)->logins, c->uid,
				     c->in.ssh_connection, c->login_shell, &c->proof_record, &why);
	c->proof_checked = true;
	if (c->proof == LOGIN_PROOF_VALID)
		return true;
	if (c->proof == LOGIN_PROOF_EXPIRED)
		return pst_refuse(&c->refusal, "this login is older than pam_postern allows (%s); log in again",
				  why.msg);
	return pst_refuse(&c->refusal, "this login did not pass postern's second factor (%s); the ssh server must run the PAM service that has pam_postern.so (PAMServiceName in the maintainers' sshd_config, OpenSSH 9.8 and later): tell an administrator",
			  why.msg);
}

/* A session an invite admitted may enrol and nothing else; a plain `ssh HOST` enrols. */
static bool invite_session(struct shell_ctx *c)
{
	if (c->inv.command == NULL) {
		c->d.command = SHELL_ENROLL;
		c->d.name = "enroll";
		return true;
	}
	if (shell_dispatch(c->inv.command, strlen(c->inv.command), &c->d) == SHELL_REFUSED)
		return pst_refuse(&c->refusal, "%s", c->d.why.msg);
	if (c->d.command != SHELL_ENROLL && c->d.command != SHELL_HELP)
		return pst_refuse(&c->refusal, "%s: this login used an invite, so it may only enrol: add the account below to your authenticator app (enroll shows it again on this connection), then log in again with a code from it; if the connection is gone before you could, ask an administrator for a new invite",
				  c->d.name);
	return c->d.command == SHELL_ENROLL || modules_ready(c);
}

static bool incoming_ready(struct shell_ctx *c)
{
	struct pst_err e = { "" };
	const char *base = policy_settings(c->policy)->incoming;

	if (base == NULL)
		return pst_refuse(&c->refusal, "rsync: uploads are not configured on this server (paths.incoming is not set; tell an administrator)");
	c->incoming_fd = incoming_dir_open(base, c->user, c->uid, &c->refusal);
	if (c->incoming_fd < 0)
		return false;
	if (incoming_quota_check(c->incoming_fd, policy_settings(c->policy)->limits.incoming_total,
				 &e) < 0)
		return pst_refuse(&c->refusal, "rsync: %s", e.msg);
	return true;
}

/* Everything that must hold before a command runs, in order; the first
 * failure is the refusal. */
static bool decide(struct shell_ctx *c, int argc, char **argv)
{
	struct pst_err e = { "" };

	if (shell_invocation_parse(argc, (const char *const *)argv, c->in.original_command, &c->inv, &e) < 0)
		return pst_refuse(&c->refusal, "%s", e.msg);
	c->invoked = true;
	if (getuid() == 0 || geteuid() == 0)
		return pst_refuse(&c->refusal, "root may not log in through postern-shell");
	if (getuid() != geteuid() || getgid() != getegid())
		return pst_refuse(&c->refusal, "postern-shell must not be installed set-uid or set-gid");
	if (c->in.unsafe[0] != '\0')
		return pst_refuse(&c->refusal, "the environment contains %s, which the dynamic loader or libc acts on before any check can run; the ssh server must not accept it from clients (AcceptEnv, PermitUserEnvironment)",
				  c->in.unsafe);
	if (c->user[0] == '\0')
		return false;    /* account_load() said why */
	if (!policy_ready(c) || !login_proven(c))
		return false;
	if (enrol_session_is_invite(&c->proof_record))
		return invite_session(c);
	if (c->inv.command == NULL) {
		if (!modules_ready(c))
			return false;
		c->interactive = true;
		return pst_refuse(&c->refusal, "no command given: this account has no interactive shell");
	}
	if (shell_dispatch(c->inv.command, strlen(c->inv.command), &c->d) == SHELL_REFUSED)
		return pst_refuse(&c->refusal, "%s", c->d.why.msg);
	if (c->d.command == SHELL_RSYNC)
		return incoming_ready(c);
	return modules_ready(c);
}

static int finish(struct shell_ctx *c, int status)
{
	char text[16];

	snprintf(text, sizeof(text), "%d", status);
	audit_emit(status == 0 ? LOG_INFO : LOG_NOTICE, "session_end", &c->s,
		   "name", c->d.name, "status", text, NULL);
	return status;
}

static int run_rsync(struct shell_ctx *c)
{
	static char line[2 * SHELL_CMD_MAX + SHELL_WORDS_MAX + 1];
	const struct shell_account acct = { c->user, c->home };
	const struct upload_limits *limits = &policy_settings(c->policy)->limits;
	struct spawn_env env = { NULL, 0, 0 };
	int status;

	if (rsync_command_format(c->d.words.n, c->d.words.word, line, sizeof(line)) < 0 ||
	    shell_env_build(&env, &acct, &c->in, line) < 0) {
		fprintf(stderr, PROG ": rsync: cannot prepare the upload (out of memory?)\n");
		spawn_env_free(&env);
		return 1;
	}
	status = upload_run(c->incoming_fd, limits->max_compressed, spawn_env_array(&env), &c->s);
	spawn_env_free(&env);
	return status;
}

static int act(struct shell_ctx *c)
{
	switch (c->d.command) {
	case SHELL_RSYNC:
		return run_rsync(c);
	case SHELL_INSTALL_MODULE:
	case SHELL_LIST:
	case SHELL_DELETE_OWN:
		fflush(stdout);
		return installd_client_run(c->policy, &c->s, (int)c->d.words.n, c->d.words.word);
	case SHELL_HELP:
		shell_help_print(stdout, c->user, c->policy);
		return 0;
	case SHELL_ENROLL:
		return enrol_run(stdout, policy_settings(c->policy)->logins, &c->proof_record,
				 c->uid, c->user);
	case SHELL_REFUSED:
		break;
	}
	return 1; /* fail safe */
}

/*
 * What pam_postern left to show once in this login (a new secret, new
 * recovery codes) is shown whatever the command: a maintainer who typed
 * another command than enroll must not lose it. On stderr, which rsync and
 * scripts leave alone.
 */
static void handoff_notice(struct shell_ctx *c)
{
	/* A policy that failed later (the module list) is gone: nothing to show then. */
	if (c->policy != NULL && c->proof_checked && c->proof == LOGIN_PROOF_VALID)
		enrol_notice(stderr, policy_settings(c->policy)->logins, &c->proof_record, c->uid,
			     c->user);
}

static int run(struct shell_ctx *c, int argc, char **argv)
{
	const char *mode;

	if (!decide(c, argc, argv)) {
		mode = c->invoked ? shell_mode_name(c->inv.mode) : NULL;
		audit_emit(LOG_NOTICE, "command_deny", &c->s, "command", c->inv.command,
			   "mode", mode, "reason", c->refusal.msg, "proof",
			   c->proof_checked ? login_proof_verdict_name(c->proof) : NULL, NULL);
		fprintf(stderr, PROG ": %s\n", c->refusal.msg);
		if (c->interactive)
			shell_help_print(stderr, c->user, c->policy);
		handoff_notice(c);
		return finish(c, 1);
	}
	audit_emit(LOG_INFO, "command_allow", &c->s, "command", c->inv.command,
		   "name", c->d.name, "mode", shell_mode_name(c->inv.mode), NULL);
	if (c->d.command != SHELL_ENROLL)
		handoff_notice(c);
	return finish(c, act(c));
}

int main(int argc, char **argv)
{
	static struct shell_ctx ctx;
	int status;

	umask(022);
	stdio_ensure_open();
	fds_close_from(3);
	ctx.incoming_fd = -1;
	if (shell_env_take((const char *const *)environ, &ctx.in) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	clearenv();
	openlog(PROG, LOG_PID, LOG_AUTHPRIV);
	/* Installs and deletes are refused by the daemon; the rest warns. */
	audit_delivery_check(PROG, AUDIT_OP_READ, AUDIT_ON_FAILURE_REFUSE, NULL);
	account_load(&ctx);
	audit_session_init(&ctx.s, ctx.user[0] ? ctx.user : NULL, ctx.in.ssh_connection);
	status = run(&ctx, argc, argv);
	if (ctx.incoming_fd >= 0)
		close(ctx.incoming_fd);
	policy_free(ctx.policy);
	shell_env_release(&ctx.in);
	closelog();
	return status;
}
