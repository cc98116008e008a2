/*
 * check-sshd (sshd_check.h). It asks sshd itself (-T) instead of parsing
 * sshd_config: Match blocks, Include files and defaults are resolved the
 * way the running sshd will resolve them for that user.
 *
 * It MUST NOT change anything, and MUST NOT hand a string to a shell: sshd
 * runs from an argv array with an empty environment (common/spawn.h). A
 * keyword sshd does not print is a problem, never a pass.
 */
#define _GNU_SOURCE
#include "sshd_check.h"

#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pam_file.h"
#include "spawn.h"

#define SSHD_DUMP_MAX (256 * 1024)
#define SSHD_DIAG_MAX 1024
#define SSHD_TIMEOUT_SEC 20
#define DEFAULT_SSHD_CONFIG "/etc/ssh/sshd_config"

enum severity { SEV_PROBLEM, SEV_WARNING };

/*
 * What sshd -T must print for a maintainer. wanted NULL: no such line at
 * all. also: another value as good as wanted. forwarding: DisableForwarding
 * yes turns it off whatever the keyword says.
 */
struct sshd_rule {
	const char *keyword;     /* as sshd -T prints it */
	const char *name;        /* as sshd_config spells it */
	const char *wanted;
	const char *also;
	enum severity severity;
	bool forwarding;
	const char *why;
};

static const struct sshd_rule rules[] = {
	{ "usepam", "UsePAM", "yes", NULL, SEV_PROBLEM, false,
	  "without PAM nothing asks for the code" },
	/* ":pam" names the only keyboard-interactive device sshd has with PAM. */
	{ "authenticationmethods", "AuthenticationMethods", "publickey,keyboard-interactive",
	  "publickey,keyboard-interactive:pam", SEV_PROBLEM, false,
	  "a login must need the key and then the code, both, every time" },
	{ "passwordauthentication", "PasswordAuthentication", "no", NULL, SEV_PROBLEM, false,
	  "sshd would take a Unix password" },
	{ "kbdinteractiveauthentication", "KbdInteractiveAuthentication", "yes", NULL,
	  SEV_PROBLEM, false, "pam_postern.so asks for the code through keyboard-interactive" },
	{ "subsystem", "Subsystem", NULL, NULL, SEV_PROBLEM, false,
	  "a subsystem (sftp) runs without postern-shell" },
	{ "permituserenvironment", "PermitUserEnvironment", "no", NULL, SEV_PROBLEM, false,
	  "~/.ssh/environment or environment= key options could steer postern-shell" },
	{ "allowtcpforwarding", "AllowTcpForwarding", "no", NULL, SEV_WARNING, true,
	  "a maintainer could reach this host's network through it" },
	{ "x11forwarding", "X11Forwarding", "no", NULL, SEV_WARNING, true,
	  "nothing here needs X11" },
	{ "permittunnel", "PermitTunnel", "no", NULL, SEV_WARNING, false,
	  "a tun device would put a maintainer on this host's network" },
	{ "allowagentforwarding", "AllowAgentForwarding", "no", NULL, SEV_WARNING, true,
	  "a forwarded agent is a key for whoever controls this host" },
	/* A warning: verify-required before each key in authorized_keys does the
	 * same, and sshd -T cannot show that. */
	{ "pubkeyauthoptions", "PubkeyAuthOptions", "verify-required",
	  "touch-required verify-required", SEV_WARNING, false,
	  "an enrolled security key (postern-totp enroll-key) admits without a code, and only "
	  "sshd sees whether the device verified its owner's PIN or fingerprint (or put "
	  "verify-required before each security key in authorized_keys)" },
};

struct report {
	FILE *out;
	const char *config;      /* where sshd_config fixes go */
	unsigned problems;
	unsigned warnings;
};

static void report_one(struct report *r, enum severity sev, const char *what, const char *fix)
{
	fprintf(r->out, "%s: %s\n  fix: %s\n", sev == SEV_PROBLEM ? "problem" : "warning", what,
		fix);
	if (sev == SEV_PROBLEM)
		r->problems++;
	else
		r->warnings++;
}

/*
 * The value of the next `keyword value` line of dump after *at, or NULL;
 * *at moves past it. The value is copied to val (cut at cap - 1).
 */
static const char *dump_next(const char *dump, const char *keyword, const char **at, char *val,
			     size_t cap)
{
	size_t klen = strlen(keyword);
	const char *line = *at != NULL ? *at : dump;

	while (*line != '\0') {
		const char *end = strchrnul(line, '\n');

		if ((size_t)(end - line) > klen && strncmp(line, keyword, klen) == 0 &&
		    line[klen] == ' ') {
			snprintf(val, cap, "%.*s", (int)(end - line - (long)klen - 1), line + klen + 1);
			*at = *end != '\0' ? end + 1 : end;
			return val;
		}
		line = *end != '\0' ? end + 1 : end;
	}
	*at = line;
	return NULL;
}

static const char *dump_value(const char *dump, const char *keyword, char *val, size_t cap)
{
	const char *at = NULL;

	return dump_next(dump, keyword, &at, val, cap);
}

static void check_absent(struct report *r, const char *dump, const struct sshd_rule *rule)
{
	const char *at = NULL;
	char val[512], what[1024], fix[1024];

	while (dump_next(dump, rule->keyword, &at, val, sizeof(val)) != NULL) {
		snprintf(what, sizeof(what), "%s %s is set: %s", rule->name, val, rule->why);
		snprintf(fix, sizeof(fix), "in %s: delete the line '%s %s' (no %s line at all)",
			 r->config, rule->name, val, rule->name);
		report_one(r, rule->severity, what, fix);
	}
}

static void check_rule(struct report *r, const char *dump, const struct sshd_rule *rule)
{
	char val[512], what[1024], fix[512];
	char off[8];

	if (rule->wanted == NULL) {
		check_absent(r, dump, rule);
		return;
	}
	if (dump_value(dump, rule->keyword, val, sizeof(val)) == NULL) {
		snprintf(what, sizeof(what), "sshd -T printed no %s line, so it cannot be "
			 "confirmed to be %s: %s", rule->keyword, rule->wanted, rule->why);
	} else if (strcmp(val, rule->wanted) == 0 ||
		   (rule->also != NULL && strcmp(val, rule->also) == 0) ||
		   (rule->forwarding &&
		    dump_value(dump, "disableforwarding", off, sizeof(off)) != NULL &&
		    strcmp(off, "yes") == 0)) {
		return;
	} else {
		snprintf(what, sizeof(what), "%s is %s, not %s: %s", rule->name, val, rule->wanted,
			 rule->why);
	}
	snprintf(fix, sizeof(fix), "in %s: %s %s", r->config, rule->name, rule->wanted);
	report_one(r, rule->severity, what, fix);
}

/* ForceCommand postern-shell, or none and postern-shell as the user's login shell. */
static void check_command(struct report *r, const char *dump, const struct sshd_check_opts *o)
{
	char val[512], what[1024], fix[1024];
	const struct passwd *pw;

	snprintf(fix, sizeof(fix), "in %s: ForceCommand %s (or: usermod -s %s %s)", r->config,
		 o->shell, o->shell, o->user);
	if (dump_value(dump, "forcecommand", val, sizeof(val)) == NULL) {
		snprintf(what, sizeof(what), "sshd -T printed no forcecommand line, so what a "
			 "login runs cannot be confirmed");
	} else if (strcmp(val, o->shell) == 0) {
		return;
	} else if (strcmp(val, "none") != 0) {
		snprintf(what, sizeof(what), "ForceCommand is '%s', not %s: a login must run "
			 "postern-shell and nothing else", val, o->shell);
	} else if ((pw = getpwnam(o->user)) == NULL) {
		snprintf(what, sizeof(what), "ForceCommand is none and there is no user %s on "
			 "this host, so the login shell cannot be confirmed", o->user);
		snprintf(fix, sizeof(fix), "give --user a maintainer's account name");
	} else if (strcmp(pw->pw_shell, o->shell) != 0) {
		snprintf(what, sizeof(what), "ForceCommand is none and the login shell of %s is "
			 "%s, not %s: the login runs any command", o->user, pw->pw_shell, o->shell);
	} else {
		return;
	}
	report_one(r, SEV_PROBLEM, what, fix);
}

static void pam_problem(void *ctx, const char *what, const char *fix)
{
	report_one(ctx, SEV_PROBLEM, what, fix);
}

/* pamservicename when sshd prints it (OpenSSH 9.8 and later), else the name it runs as. */
static void check_pam(struct report *r, const char *dump, const struct sshd_check_opts *o)
{
	char service[256];
	const char *base = strrchr(o->sshd, '/') + 1;
	bool configured = dump_value(dump, "pamservicename", service, sizeof(service)) != NULL;
	struct pam_auth_report pr = { pam_problem, r, 0, false };

	if (!configured)
		snprintf(service, sizeof(service), "%s", base);
	fprintf(r->out, "PAM service: %s (%s)\n", service,
		configured ? "PAMServiceName" : "the name sshd runs as, before OpenSSH 9.8");
	if (pam_auth_check(o->pam_dir, service, &pr) == 0 || strcmp(service, "sshd") != 0)
		return;
	/* The stock service is the admins' own: give the maintainers one of theirs. */
	if (configured)
		fprintf(r->out, "  or: in %s: PAMServiceName postern-sshd (and %s/postern-sshd "
			"from examples/pam.d-postern-sshd)\n", r->config, o->pam_dir);
	else
		fprintf(r->out, "  or: run sshd through a link named postern-sshd (and %s/"
			"postern-sshd from examples/pam.d-postern-sshd)\n", o->pam_dir);
}

/* What to do about the usual reasons sshd -T fails, from its own words. */
static const char *cannot_run_hint(const char *diag)
{
	if (strstr(diag, "privilege separation directory") != NULL)
		return "create it (install -d -m 0755 /run/sshd; the sshd unit's "
		       "RuntimeDirectory=sshd does it at boot) and check again";
	if (strstr(diag, "no hostkeys") != NULL || strstr(diag, "host key") != NULL)
		return "run check-sshd as root, so that sshd can read its host keys, or give "
		       "the config a HostKey that exists";
	return "correct what sshd says, then check again";
}

static bool context_ok(const struct sshd_check_opts *o)
{
	/* sshd -C splits its argument on commas and '='. */
	if (strpbrk(o->user, ",=") == NULL && strpbrk(o->host, ",=") == NULL &&
	    strpbrk(o->addr, ",=") == NULL && o->user[0] != '\0')
		return true;
	fprintf(stderr, "postern-policy: check-sshd: --user, --host and --addr must be "
		"non-empty names without ',' or '='\n");
	return false;
}

/* sshd -T into dump (NUL-terminated); false with the reason on stderr. */
static bool sshd_dump(const struct sshd_check_opts *o, char *dump, size_t cap)
{
	char ctx[1024], diag[SSHD_DIAG_MAX];
	const char *argv[] = { o->sshd, "-T", "-C", ctx, o->config ? "-f" : NULL, o->config, NULL };
	char *const envp[] = { NULL };
	struct pst_err e;
	size_t len = 0;
	int status = 0;

	snprintf(ctx, sizeof(ctx), "user=%s,host=%s,addr=%s", o->user, o->host, o->addr);
	if (spawn_capture_diag(argv, envp, SSHD_TIMEOUT_SEC, dump, cap - 1, &len, diag,
			       sizeof(diag), &status, &e) < 0) {
		fprintf(stderr, "postern-policy: check-sshd: %s (give --sshd the path of "
			"OpenSSH's sshd)\n", e.msg);
		return false;
	}
	dump[len] = '\0';
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && len > 0)
		return true;
	diag[strcspn(diag, "\r\n")] = '\0';   /* sshd ends its log lines with \r\n */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		fprintf(stderr, "postern-policy: check-sshd: cannot execute %s (give --sshd the "
			"path of OpenSSH's sshd)\n", o->sshd);
	else
		fprintf(stderr, "postern-policy: check-sshd: %s -T failed (%s %d): %s; %s\n",
			o->sshd, WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			diag[0] != '\0' ? diag : "it said nothing", cannot_run_hint(diag));
	return false;
}

int sshd_check(const struct sshd_check_opts *o, FILE *out)
{
	static char dump[SSHD_DUMP_MAX];
	struct report r = { out, o->config ? o->config : DEFAULT_SSHD_CONFIG, 0, 0 };
	size_t i;

	if (o->sshd[0] != '/' || strrchr(o->sshd, '/')[1] == '\0') {
		fprintf(stderr, "postern-policy: check-sshd: --sshd %s: give the absolute path "
			"of the sshd program\n", o->sshd);
		return SSHD_CHECK_CANNOT_RUN;
	}
	if (!context_ok(o) || !sshd_dump(o, dump, sizeof(dump)))
		return SSHD_CHECK_CANNOT_RUN;
	fprintf(out, "sshd -T for user=%s host=%s addr=%s (%s):\n", o->user, o->host, o->addr,
		r.config);
	check_pam(&r, dump, o);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		check_rule(&r, dump, &rules[i]);
	check_command(&r, dump, o);
	fprintf(out, "%u problem%s, %u warning%s\n", r.problems, r.problems == 1 ? "" : "s",
		r.warnings, r.warnings == 1 ? "" : "s");
	return r.problems ? SSHD_CHECK_PROBLEMS : SSHD_CHECK_OK;
}
