/*
 * postern-policy: the administrator's view of the release policy.
 *
 *   check            validate postern.yaml and the generated DOAP file, summarise
 *   explain U M      the decision for user U (or ci:ISSUER/PROJECT) on module M, and why
 *   modules U        everything U may release, and why
 *   import-doap      DOAP files -> the generated module file, changes announced
 *   doap-configured  for systemd's ExecCondition: are doap_sources configured?
 *   check-sshd       does the maintainers' sshd ask for the key and the code?
 *
 * It only reads the policy (check-sshd reads sshd's configuration instead), except import-doap, which writes the generated
 * file (atomically, root-owned) and runs hooks.doap_change with an
 * environment built from scratch.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "audit.h"
#include "build_config.h"
#include "doap_import.h"
#include "policy.h"
#include "policy_report.h"
#include "spawn.h"
#include "sshd_check.h"

#define PROG "postern-policy"
#define EXIT_FAIL 1
#define CONDITION_ERROR 255
#define PATHS_MAX 256

struct command {
	const char *name;
	int (*run)(const char *config, int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct command *find_command(const char *name);

static void usage_to(FILE *f, const struct command *c)
{
	fprintf(f, "usage: " PROG " [-C FILE] %s %s\n%s", c->name, c->usage, c->help);
}

static int load_failed(const char *config, const struct pst_err *e)
{
	struct audit_session s;

	fprintf(stderr, PROG ": %s\n", e->msg);
	audit_session_init(&s, NULL, getenv("SSH_CONNECTION"));
	audit_emit(LOG_NOTICE, "policy_error", &s, "file", config, "error", e->msg, NULL);
	return EXIT_FAIL;
}

/* A command's own options and operands, and how much of the policy it needs. */
struct command_args {
	const struct option *extra;       /* its long options, or NULL */
	size_t nextra;
	int (*handle)(int opt, const char *arg, void *ctx);   /* their values */
	void *ctx;
	int operands;                     /* how many it takes; -1: any number */
	bool settings_only;               /* policy_load_settings: no module list */
};

/*
 * What every command does first: -C/--config, --help and its own options (in
 * any order with the operands, "--" ends them), the number of operands, then
 * the policy. Returns the index of the first operand with *p loaded, or -1
 * with *status the exit status (0 after --help).
 */
static int start_command(const char *name, const struct command_args *a, int argc,
			 char **argv, const char **config, struct policy **p, int *status)
{
	const struct command *c = find_command(name);
	struct option opts[8] = {
		{ "config", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct pst_err e;
	size_t i;
	int opt;

	for (i = 0; i < a->nextra && i + 2 < sizeof(opts) / sizeof(opts[0]) - 1; i++)
		opts[i + 2] = a->extra[i];
	optind = 0;
	*status = EXIT_FAIL;
	/* No "+": options may follow the operands, GNU style. */
	while ((opt = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (opt == 'C') {
			*config = optarg;
		} else if (opt == 'h') {
			usage_to(stdout, c);
			*status = 0;
			return -1;
		} else if (a->handle == NULL || opt == '?' || a->handle(opt, optarg, a->ctx) < 0) {
			usage_to(stderr, c);
			return -1;
		}
	}
	if (a->operands >= 0 && argc - optind != a->operands) {
		usage_to(stderr, c);
		return -1;
	}
	if ((a->settings_only ? policy_load_settings(*config, p, &e)
			      : policy_load(*config, p, &e)) < 0) {
		*status = load_failed(*config, &e);
		return -1;
	}
	return optind;
}

/* The admin's first look: where would the audit records of this host go? */
static void print_audit_delivery(const struct policy_settings *s)
{
	char receiver[32];
	struct pst_err why;

	if (audit_delivery_probe(receiver, sizeof(receiver), &why))
		printf("audit records: delivered to %s through /dev/log\n", receiver);
	else
		printf("audit records: NOT delivered: %s; changes are %s (audit.on_failure: %s)\n", why.msg,
		       s->audit_on_failure == AUDIT_ON_FAILURE_CONTINUE ? "made without a record" : "refused",
		       s->audit_on_failure == AUDIT_ON_FAILURE_CONTINUE ? "continue" : "refuse");
}

static int run_check(const char *config, int argc, char **argv)
{
	static const struct command_args args = { .operands = 0 };
	struct policy *p;
	int status;
	unsigned warnings;

	if (start_command("check", &args, argc, argv, &config, &p, &status) < 0)
		return status;
	warnings = report_check(stdout, p, config);
	print_audit_delivery(policy_settings(p));
	printf("%u warning%s\n", warnings, warnings == 1 ? "" : "s");
	policy_free(p);
	return 0;
}

static int explain_option(int opt, const char *arg, void *ctx)
{
	(void)arg;
	if (opt != 'd')
		return -1;
	*(enum policy_action *)ctx = POLICY_DELETE;
	return 0;
}

static int run_explain(const char *config, int argc, char **argv)
{
	static const struct option extra[] = { { "delete", no_argument, NULL, 'd' } };
	enum policy_action action = POLICY_INSTALL;
	const struct command_args args = { extra, 1, explain_option, &action, 2, false };
	struct policy *p;
	int status;
	int first = start_command("explain", &args, argc, argv, &config, &p, &status);
	enum policy_basis b;

	if (first < 0)
		return status;
	if (is_ci_identity(argv[first]))
		b = report_explain_ci(stdout, p, argv[first], action, argv[first + 1])
			? POLICY_MAINTAINER : POLICY_DENY;
	else
		b = report_explain(stdout, p, argv[first], action, argv[first + 1]);
	policy_free(p);
	return b == POLICY_DENY ? EXIT_FAIL : 0;
}

static int run_modules(const char *config, int argc, char **argv)
{
	static const struct command_args args = { .operands = 1 };
	struct policy *p;
	int status;
	int first = start_command("modules", &args, argc, argv, &config, &p, &status);

	if (first < 0)
		return status;
	if (report_modules(stdout, p, argv[first]) == 0)
		printf("%s may not release any module\n", argv[first]);
	policy_free(p);
	return 0;
}

struct import_args {
	const char *output;
	const char *previous;
};

static int import_option(int opt, const char *arg, void *ctx)
{
	struct import_args *a = ctx;

	if (opt == 'o')
		a->output = arg;
	else if (opt == 'p')
		a->previous = arg;
	else
		return -1;
	return 0;
}

/* Operands may be relative to the working directory; the import wants absolute paths. */
static const char *absolute(const char *path, char *buf, size_t size)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/')
		return path;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return NULL;
	n = snprintf(buf, size, "%s/%s", cwd, path);
	return n > 0 && (size_t)n < size ? buf : NULL;
}

static int import_paths(int argc, char **argv, int first, const struct policy_settings *s,
			const char **paths, char (*bufs)[PATH_MAX], size_t *n)
{
	size_t i;

	*n = 0;
	if (first == argc) {
		for (i = 0; s->doap_sources != NULL && s->doap_sources[i] != NULL; i++) {
			/* Dropping a source would make its modules look removed. */
			if (i == PATHS_MAX) {
				fprintf(stderr, PROG ": import-doap: more than %d doap_sources\n",
					PATHS_MAX);
				return -1;
			}
			paths[(*n)++] = s->doap_sources[i];
		}
		if (*n == 0)
			fprintf(stderr, PROG ": import-doap: no PATH given and no doap_sources in "
				"the configuration\n");
		return *n == 0 ? -1 : 0;
	}
	if (argc - first > PATHS_MAX) {
		fprintf(stderr, PROG ": import-doap: more than %d paths\n", PATHS_MAX);
		return -1;
	}
	for (; first < argc; first++) {
		paths[*n] = absolute(argv[first], bufs[*n], PATH_MAX);
		if (paths[*n] == NULL) {
			fprintf(stderr, PROG ": import-doap: %s: path too long\n", argv[first]);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

static int run_import(const char *config, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "previous", required_argument, NULL, 'p' },
	};
	static char bufs[PATHS_MAX + 2][PATH_MAX];
	const char *paths[PATHS_MAX];
	char output[PATH_MAX];
	struct import_args a = { NULL, NULL };
	const struct command_args args = { extra, 2, import_option, &a, -1, true };
	struct import_opts o = { 0 };
	const struct policy_settings *s;
	struct policy *p;
	struct pst_err e;
	int status;
	int first = start_command("import-doap", &args, argc, argv, &config, &p, &status);

	if (first < 0)
		return status;
	s = policy_settings(p);
	if (audit_delivery_check(PROG, AUDIT_OP_CHANGE, s->audit_on_failure, &e) < 0) {
		fprintf(stderr, PROG ": import-doap: %s\n", e.msg);
		policy_free(p);
		return EXIT_FAIL;
	}
	if (import_paths(argc, argv, first, s, paths, bufs, &o.npaths) < 0) {
		policy_free(p);
		return EXIT_FAIL;
	}
	o.paths = paths;
	if (a.output == NULL && s->doap_modules == NULL)
		snprintf(output, sizeof(output), "%s/doap-modules.yaml", s->state);
	o.output = a.output ? absolute(a.output, bufs[PATHS_MAX], PATH_MAX)
		   : s->doap_modules ? s->doap_modules : output;
	o.previous = a.previous ? absolute(a.previous, bufs[PATHS_MAX + 1], PATH_MAX) : o.output;
	o.hook = s->hook_doap_change;
	o.hook_user = s->hook_doap_change_user;
	o.parse_user = s->doap_parse_user;
	o.mail_to = s->mail_to;
	o.mail_from = s->mail_from;
	if (o.output == NULL || o.previous == NULL) {
		fprintf(stderr, PROG ": import-doap: path too long\n");
		status = EXIT_FAIL;
	} else {
		status = doap_import_run(&o);
	}
	policy_free(p);
	return status;
}

static int run_doap_configured(const char *config, int argc, char **argv)
{
	static const struct command_args args = { .operands = 0, .settings_only = true };
	struct policy *p;
	int status;

	/* systemd's ExecCondition: 255 for anything but --help, which is an answer. */
	if (start_command("doap-configured", &args, argc, argv, &config, &p, &status) < 0)
		return status == 0 ? 0 : CONDITION_ERROR;
	status = policy_settings(p)->doap_sources != NULL ? 0 : 1;
	policy_free(p);
	return status;
}

static int check_sshd_option(int opt, const char *arg, struct sshd_check_opts *o)
{
	if (opt == 's')
		o->sshd = arg;
	else if (opt == 'f')
		o->config = arg;
	else if (opt == 'p')
		o->pam_dir = arg;
	else if (opt == 'u')
		o->user = arg;
	else if (opt == 'a')
		o->addr = arg;
	else if (opt == 'H')
		o->host = arg;
	else
		return -1;
	return 0;
}

/* Not start_command: it needs no policy, and 1 means "problems found" here. */
static int run_check_sshd(const char *config, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sshd", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'f' },
		{ "pam-dir", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "addr", required_argument, NULL, 'a' },
		{ "host", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sshd_check_opts o = { "/usr/sbin/sshd", NULL, "/etc/pam.d", NULL, "localhost",
				     "127.0.0.1", POSTERN_SHELL_EXE };
	const struct command *c = find_command("check-sshd");
	int opt;

	(void)config;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h') {
			usage_to(stdout, c);
			return 0;
		}
		if (check_sshd_option(opt, optarg, &o) < 0) {
			usage_to(stderr, c);
			return SSHD_CHECK_CANNOT_RUN;
		}
	}
	if (optind != argc || o.user == NULL) {
		fprintf(stderr, PROG ": check-sshd: %s\n", optind != argc
			? "takes no operands" : "--user USER is required: the maintainer whose "
			"login to check (sshd's Match blocks depend on it)");
		usage_to(stderr, c);
		return SSHD_CHECK_CANNOT_RUN;
	}
	return sshd_check(&o, stdout);
}

static const struct command commands[] = {
	{ "check", run_check, "",
	  "Validate the configuration and the generated DOAP module file it names, then\n"
	  "print numbers of modules, maintainers and open modules, the release team, the\n"
	  "explicit entries that override DOAP entries, warnings for users and groups\n"
	  "that do not exist on this system, and where the audit records go.\n"
	  "Exit status: 0 valid (warnings do not count), 1 invalid.\n" },
	{ "explain", run_explain, "[--delete] USER|ci:ISSUER/PROJECT MODULE",
	  "Print whether USER may release MODULE (with --delete: delete its releases),\n"
	  "and why. ci:ISSUER/PROJECT asks for the CI jobs of PROJECT with tokens from\n"
	  "ci.issuers.ISSUER (modules.MODULE.ci); they never delete.\n"
	  "Exit status: 0 allowed, 1 refused (or the policy could not be loaded).\n" },
	{ "modules", run_modules, "USER",
	  "List every module USER may release, each with the reason.\n"
	  "Exit status: 0 listed (possibly nothing), 1 the policy could not be loaded.\n" },
	{ "import-doap", run_import, "[--output FILE] [--previous FILE] [PATH...]",
	  "Read the maintainers of each module from its DOAP file and write the generated\n"
	  "module file atomically. PATH is a directory of MODULE.doap files or a single\n"
	  "file (default: doap_sources from the configuration). --output defaults to\n"
	  "doap_modules from the configuration, else STATE/doap-modules.yaml; --previous\n"
	  "defaults to the output file. A malformed DOAP file is reported and its module\n"
	  "keeps its previous entry. Each module whose maintainers changed is printed,\n"
	  "logged (event=doap_change) and passed to hooks.doap_change.\n"
	  "Exit status: 0 no change, 2 changes, 1 errors (a DOAP file was refused, a\n"
	  "hook failed, or nothing could be written).\n" },
	{ "doap-configured", run_doap_configured, "",
	  "For systemd's ExecCondition: exit 0 when the configuration lists doap_sources,\n"
	  "1 when it does not, 255 when the configuration cannot be loaded.\n" },
	{ "check-sshd", run_check_sshd,
	  "[--sshd PATH] [--config FILE] [--pam-dir DIR] --user USER [--addr ADDR] [--host HOST]",
	  "Ask sshd what it would do for USER logging in from ADDR (HOST) (sshd -T -C\n"
	  "user=USER,host=HOST,addr=ADDR [-f FILE]) and report every problem with the\n"
	  "sshd_config or PAM line that fixes it: PAM must be on, and the PAM service\n"
	  "(PAMServiceName on OpenSSH 9.8 and later, else the name sshd runs as) must run\n"
	  "'auth required pam_postern.so' (includes in DIR are followed);\n"
	  "AuthenticationMethods publickey,keyboard-interactive; PasswordAuthentication no;\n"
	  "KbdInteractiveAuthentication yes; no Subsystem; PermitUserEnvironment no;\n"
	  "ForceCommand " POSTERN_SHELL_EXE ", or none and that as USER's login shell.\n"
	  "Forwarding and tunnels that are on are warnings.\n"
	  "Defaults: --sshd /usr/sbin/sshd, --config sshd's own, --pam-dir /etc/pam.d,\n"
	  "--addr 127.0.0.1, --host localhost.\n"
	  "Exit status: 0 no problems (warnings do not count), 1 problems, 2 sshd could\n"
	  "not be run (or a usage error).\n" },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void main_usage(FILE *f)
{
	size_t i;

	fputs("usage: " PROG " [-C FILE] COMMAND [ARGS]\n"
	      "  -C, --config FILE  configuration (default " POSTERN_CONFIG_FILE ")\n"
	      "  COMMAND --help     help for one command\ncommands:\n", f);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s %s\n", commands[i].name, commands[i].usage);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = POSTERN_CONFIG_FILE;
	const struct command *c;
	int opt;

	fds_close_from(3);
	umask(022);
	openlog(PROG, LOG_PID, LOG_AUTHPRIV);
	while ((opt = getopt_long(argc, argv, "+C:hV", opts, NULL)) != -1) {
		if (opt == 'C') {
			config = optarg;
		} else if (opt == 'h') {
			main_usage(stdout);
			return 0;
		} else if (opt == 'V') {
			puts(PROG " " POSTERN_VERSION);
			return 0;
		} else {
			main_usage(stderr);
			return EXIT_FAIL;
		}
	}
	if (optind >= argc) {
		main_usage(stderr);
		return EXIT_FAIL;
	}
	c = find_command(argv[optind]);
	if (c == NULL) {
		fprintf(stderr, PROG ": unknown command '%s'\n", argv[optind]);
		main_usage(stderr);
		return EXIT_FAIL;
	}
	/* import-doap decides for itself; check reports on stdout; a unit's
	 * ExecCondition (doap-configured) has nobody to warn; check-sshd reads
	 * no policy and records nothing. */
	if (c->run != run_import && c->run != run_check && c->run != run_doap_configured &&
	    c->run != run_check_sshd)
		audit_delivery_check(PROG, AUDIT_OP_READ, AUDIT_ON_FAILURE_REFUSE, NULL);
	return c->run(config, argc - optind, argv + optind);
}
