/*
 * postern-audit: who logged in, released what, when, from where, and what
 * was refused, from the syslog or journal trail of a postern server.
 *
 * It reads input an attacker may have written to (any local user can send
 * syslog lines), so it trusts nothing it cannot check: trail.c decides what
 * counts; every line it rejects is reported on stderr with its line number
 * and left out of every listing and count (exit status 2 then).
 */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build_config.h"
#include "events.h"
#include "log_verify.h"
#include "input.h"
#include "report.h"

#define PROG "postern-audit"

enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_SUSPICIOUS = 2,
};

enum long_only {
	OPT_SINCE = 256, OPT_UNTIL, OPT_YEAR, OPT_FROM, OPT_JSON, OPT_CSV,
	OPT_DAEMON_UID, OPT_SHELL_EXE, OPT_INPUT, OPT_LIST_EVENTS, OPT_VERSION,
	OPT_FORMAT, OPT_SSHD_TAG, OPT_SSHD_PORT, OPT_SIGNED, OPT_SIGNER, OPT_UPLOADER, OPT_CI,
};

static const struct option long_options[] = {
	{ "user", required_argument, NULL, 'u' },
	{ "module", required_argument, NULL, 'm' },
	{ "event", required_argument, NULL, 'e' },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "signed", required_argument, NULL, OPT_SIGNED },
	{ "signer", required_argument, NULL, OPT_SIGNER },
	{ "uploader", required_argument, NULL, OPT_UPLOADER },
	{ "ci", required_argument, NULL, OPT_CI },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "year", required_argument, NULL, OPT_YEAR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "daemon-uid", required_argument, NULL, OPT_DAEMON_UID },
	{ "shell-exe", required_argument, NULL, OPT_SHELL_EXE },
	{ "sshd-tag", required_argument, NULL, OPT_SSHD_TAG },
	{ "sshd-port", required_argument, NULL, OPT_SSHD_PORT },
	{ "list-events", no_argument, NULL, OPT_LIST_EVENTS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fputs("usage: " PROG " [summary | signers | session ID] [OPTION...] [FILE...]\n"
	      "       " PROG " verify [-C CONFIG] [--vkey FILE|KEY]   (see " PROG " verify --help)\n"
	      "Reads auth.log-style syslog files, RFC 5424 files, or `journalctl -o json`\n"
	      "output (FILE, or standard input), and shows postern's audit records.\n"
	      "Options may come before or after the files; -- ends them.\n"
	      "\n"
	      "  (no command)     list the records\n"
	      "  summary          per user: logins ok/failed, denied commands, installs,\n"
	      "                   non-maintainer uploads, refused installs, lockouts,\n"
	      "                   sshd's refusals, disconnects before authentication,\n"
	      "                   signed and unsigned releases; a CI job's releases under\n"
	      "                   its identity ci:ISSUER/PROJECT\n"
	      "  signers          per signing key: releases, users, modules (- : unsigned)\n"
	      "  session ID       one ssh session's records, in order\n"
	      "\n"
	      "  -u, --user U     only records about U (repeat, or U1,U2)\n"
	      "  -m, --module M   only records about module M\n"
	      "  -e, --event E    only events E (see --list-events)\n"
	      "      --from ADDR  only records from client address ADDR\n"
	      "      --signed yes|no  only releases (install_ok) with or without a signature\n"
	      "      --signer FPR only releases signed by key FPR (40 or 64 hex digits;\n"
	      "                   repeat, or FPR1,FPR2)\n"
	      "      --uploader U only releases and refusals by U: a user, or a CI job's\n"
	      "                   identity ci:ISSUER/PROJECT (repeat, or U1,U2)\n"
	      "      --ci yes|no  only CI jobs' uploads (with pipeline, job, commit and the\n"
	      "                   user who triggered it), or none of them\n"
	      "      --since T    from T on; T is today, yesterday, tomorrow, now, -30min,\n"
	      "                   -1h, -2d, -1w (units s, min, h, d, w), or ISO 8601:\n"
	      "                   2026-12-03, 2026-12-03T06:30, 2026-12-03T06:30:00Z;\n"
	      "                   without a zone, local time\n"
	      "      --until T    up to T (a day alone, or today/yesterday: to its end)\n"
	      "      --year Y     year of traditional syslog lines, which have none\n"
	      "                   (default: this year, or last year for a future date)\n"
	      "      --json       JSON lines;  --csv  CSV (RFC 4180)\n"
	      "      --format F   table (default), json or csv\n"
	      "      --input FMT  auto (default), syslog or journal\n"
	      "      --daemon-uid UID  uid of postern-installd (default: user postern)\n"
	      "      --shell-exe PATH  where postern-shell is installed (default " POSTERN_SHELL_EXE ")\n"
	      "      --sshd-tag TAG    syslog tag of the maintainers' sshd, whose own refusals\n"
	      "                   are read too, and of its connections' lines: those\n"
	      "                   under sshd-session and sshd-auth (OpenSSH 9.8 and later)\n"
	      "                   (default postern-sshd; none: read no sshd line)\n"
	      "      --sshd-port N     port the maintainers' sshd listens on (repeat, or\n"
	      "                   N1,N2): an sshd-session/sshd-auth line counts only for\n"
	      "                   a connection to N, known from its \"Connection from\"\n"
	      "                   line (LogLevel VERBOSE); without --sshd-port, all of\n"
	      "                   them count, the admins' sshd's too\n"
	      "  -q, --quiet      no notes (suspicious lines are always reported)\n"
	      "      --list-events  the events of the schema and who emits them\n"
	      "\n"
	      "Exit status: 0, 1 on error, 2 when suspicious lines were found.\n", out);
}

static long uid_of_user(const char *user)
{
	struct passwd *pw = getpwnam(user);

	return pw != NULL ? (long)pw->pw_uid : -1;
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	*out = strtoul(s, &end, 10);
	return errno == 0 && *end == '\0' && *out <= max;
}

/* "postern-audit: WHAT: WHY" for a bad command line. */
static int die_usage(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why);
	return EXIT_ERROR;
}

/* --sshd-port N or N1,N2: added to the ports of the postern sshd. */
static int add_sshd_ports(struct trail_rules *rules, const char *arg)
{
	char word[8];
	const char *p = arg, *comma;
	unsigned long n;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len >= sizeof(word))
			return die_usage(arg, "--sshd-port needs port numbers from 1 to 65535 (N, or N1,N2)");
		memcpy(word, p, len);
		word[len] = '\0';
		if (!parse_ulong(word, 65535, &n) || n == 0)
			return die_usage(arg, "--sshd-port needs port numbers from 1 to 65535 (N, or N1,N2)");
		if (rules->sshd_nports >= TRAIL_SSHD_PORTS_MAX)
			return die_usage(arg, "--sshd-port: more than 16 ports (give only the Port lines of the maintainers' sshd)");
		rules->sshd_ports[rules->sshd_nports++] = (unsigned)n;
		if (comma == NULL)
			return EXIT_OK;
		p = comma + 1;
	}
}

static int list_events(void)
{
	const struct event_info *ev;
	size_t n, i;
	unsigned bit;

	ev = event_table(&n);
	for (i = 0; i < n; i++) {
		printf("%s", ev[i].name);
		for (bit = 1; bit <= EMIT_SSHD; bit <<= 1) {
			if (ev[i].emitters & bit)
				printf(" %s", emitter_name(bit));
		}
		putchar('\n');
	}
	return EXIT_OK;
}

static int add_names(struct name_list *list, char *arg, bool are_events)
{
	struct pst_err e;
	size_t i;

	if (name_list_add(list, arg, &e) != 0)
		return die_usage(arg, e.msg);
	for (i = 0; are_events && i < list->count; i++) {
		if (event_find(list->name[i]) == NULL)
			return die_usage(list->name[i], "unknown event (" PROG " --list-events shows them)");
	}
	return EXIT_OK;
}

static int add_fingerprints(struct name_list *list, char *arg)
{
	size_t first = list->count;
	struct pst_err e;
	int rc = add_names(list, arg, false);

	if (rc == EXIT_OK && name_list_fingerprints(list, first, &e) != 0)
		return die_usage(arg, e.msg);
	return rc;
}

static int parse_time_option(const char *arg, bool until, int64_t *us, bool *have)
{
	if (!time_parse_relative(arg, time(NULL), until, us) &&
	    time_parse_iso(arg, strlen(arg), until, us) != strlen(arg))
		return die_usage(arg, "not a time: give today, yesterday, now, -30min, -1h, -2d, -1w, or an ISO 8601 date or time (2026-12-03, 2026-12-03T06:30, 2026-12-03T06:30:00Z)");
	*have = true;
	return EXIT_OK;
}

/* The words an option takes, each with the value it stands for. */
struct word {
	const char *word;
	int value;
};

static const struct word signed_words[] = {
	{ "yes", SIGNED_YES }, { "no", SIGNED_NO }, { NULL, 0 },
};
static const struct word format_words[] = {
	{ "table", OUT_TABLE }, { "json", OUT_JSON }, { "csv", OUT_CSV }, { NULL, 0 },
};
static const struct word input_words[] = {
	{ "auto", INPUT_AUTO }, { "syslog", INPUT_SYSLOG }, { "journal", INPUT_JOURNAL }, { NULL, 0 },
};

/* *value set to the value of word arg, or a usage error saying why. */
static int choose(const char *arg, const struct word *words, const char *why, int *value)
{
	for (; words->word != NULL; words++) {
		if (strcmp(arg, words->word) == 0) {
			*value = words->value;
			return EXIT_OK;
		}
	}
	return die_usage(arg, why);
}

static int parse_option(int opt, struct query *q, struct input_options *in,
			enum out_format *fmt)
{
	unsigned long n;
	int v, rc;

	switch (opt) {
	case 'u':
		return add_names(&q->users, optarg, false);
	case 'm':
		return add_names(&q->modules, optarg, false);
	case 'e':
		return add_names(&q->events, optarg, true);
	case OPT_FROM:
		return add_names(&q->froms, optarg, false);
	case OPT_SIGNED:
		v = (int)q->signed_only;
		rc = choose(optarg, signed_words, "--signed is yes or no", &v);
		q->signed_only = (enum signed_filter)v;
		return rc;
	case OPT_SIGNER:
		return add_fingerprints(&q->signers, optarg);
	case OPT_UPLOADER:
		return add_names(&q->uploaders, optarg, false);
	case OPT_CI:
		v = (int)q->ci_only;
		rc = choose(optarg, signed_words, "--ci is yes or no", &v);
		q->ci_only = (enum signed_filter)v;
		return rc;
	case OPT_SINCE:
		return parse_time_option(optarg, false, &q->since_us, &q->have_since);
	case OPT_UNTIL:
		return parse_time_option(optarg, true, &q->until_us, &q->have_until);
	case OPT_YEAR:
		if (!parse_ulong(optarg, 9999, &n) || n < 1970)
			return die_usage(optarg, "--year needs a year from 1970 on");
		in->rules.years.year = (int)n;
		in->rules.years.fixed = true;
		return EXIT_OK;
	case OPT_JSON:
		*fmt = OUT_JSON;
		return EXIT_OK;
	case OPT_CSV:
		*fmt = OUT_CSV;
		return EXIT_OK;
	case OPT_FORMAT:
		v = (int)*fmt;
		rc = choose(optarg, format_words, "--format is table, json or csv", &v);
		*fmt = (enum out_format)v;
		return rc;
	case OPT_INPUT:
		v = (int)in->format;
		rc = choose(optarg, input_words, "--input is auto, syslog or journal", &v);
		in->format = (enum input_format)v;
		return rc;
	case OPT_DAEMON_UID:
		if (!parse_ulong(optarg, 0xfffffffeUL, &n))
			return die_usage(optarg, "--daemon-uid needs a number");
		in->rules.daemon_uid = (long)n;
		return EXIT_OK;
	case OPT_SHELL_EXE:
		if (optarg[0] != '/')
			return die_usage(optarg, "--shell-exe needs an absolute path");
		in->rules.shell_exe = optarg;
		return EXIT_OK;
	case OPT_SSHD_TAG:
		in->rules.sshd_tag = strcmp(optarg, "none") == 0 ? NULL : optarg;
		return EXIT_OK;
	case OPT_SSHD_PORT:
		return add_sshd_ports(&in->rules, optarg);
	case 'q':
		in->quiet = true;
		return EXIT_OK;
	default:
		usage(stderr);
		return EXIT_ERROR;
	}
}

static void default_options(struct input_options *in)
{
	static struct sshd_sessions sshd_sessions;
	struct passwd *pw;

	memset(in, 0, sizeof(*in));
	in->format = INPUT_AUTO;
	in->rules.years.now = time(NULL);
	in->rules.shell_exe = POSTERN_SHELL_EXE;
	in->rules.uid_of_user = uid_of_user;
	in->rules.sshd_tag = "postern-sshd";
	in->rules.sshd = &sshd_sessions;
	pw = getpwnam("postern");
	in->rules.daemon_uid = pw != NULL ? (long)pw->pw_uid : -1;
}

static int run(const char *command, struct query *q, const struct input_options *in,
	       enum out_format fmt, char **files, int nfiles)
{
	struct record_set set = { 0 };
	struct input_stats stats = { 0 };
	int rc;

	rc = input_read_all(in, q, files, nfiles, &set, &stats);
	if (rc == 0 && stats.records == 0 && !in->quiet)
		fprintf(stderr, PROG ": note: no postern audit record in the input (is it auth.log, or journalctl -o json output?)\n");
	if (rc == 0) {
		record_set_sort(&set);
		if (command != NULL && strcmp(command, "summary") == 0)
			rc = report_summary(stdout, fmt, &set);
		else if (command != NULL && strcmp(command, "signers") == 0)
			rc = report_signers(stdout, fmt, &set);
		else
			report_records(stdout, fmt, &set, q->sid != NULL);
	}
	record_set_free(&set);
	if (rc == -ENOMEM)
		fprintf(stderr, PROG ": out of memory\n");
	if (rc != 0 || fflush(stdout) != 0 || ferror(stdout))
		return EXIT_ERROR;
	return stats.suspicious > 0 ? EXIT_SUSPICIOUS : EXIT_OK;
}

/*
 * `verify` has options of its own (log_verify.h): when it is the command,
 * wherever it stands among them, the rest of the line is its own.
 */
static bool verify_command(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-C") == 0 || strcmp(argv[i], "--config") == 0 ||
		    strcmp(argv[i], "--vkey") == 0) {
			i++;
			continue;
		}
		if (argv[i][0] != '-') {
			if (strcmp(argv[i], "verify") != 0)
				return false;
			memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
			memmove(&argv[2], &argv[1], (size_t)(argc - 2) * sizeof(*argv));
			argv[1] = (char *)"verify";
			return true;
		}
	}
	return false;
}

int main(int argc, char **argv)
{
	struct query q = { 0 };
	struct input_options in;
	enum out_format fmt = OUT_TABLE;
	const char *command = NULL;
	int opt, rc;

	/* One write per suspicious-line report, not one per character. */
	setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
	if (verify_command(argc, argv))
		return audit_verify_main(argc - 1, argv + 1);
	default_options(&in);
	while ((opt = getopt_long(argc, argv, "u:m:e:qh", long_options, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		if (opt == OPT_VERSION) {
			puts(PROG " " POSTERN_VERSION);
			return EXIT_OK;
		}
		if (opt == OPT_LIST_EVENTS)
			return list_events();
		if ((rc = parse_option(opt, &q, &in, &fmt)) != EXIT_OK)
			return rc;
	}
	if (optind < argc && (strcmp(argv[optind], "summary") == 0 ||
			      strcmp(argv[optind], "signers") == 0)) {
		command = argv[optind++];
	} else if (optind < argc && strcmp(argv[optind], "session") == 0) {
		command = argv[optind++];
		if (optind >= argc)
			return die_usage("session", "needs a session id (the sid field of a record, 16 hex digits)");
		q.sid = argv[optind++];
	}
	return run(command, &q, &in, fmt, argv + optind, argc - optind);
}
