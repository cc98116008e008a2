/*
 * Design note. An rsync server command is attacker-chosen argv for a
 * program with a very large option surface: --daemon --config= ran commands
 * through rssh (CVE-2019-3463), -e/--rsh through scponly, --log-file and
 * batch files write where they like, --sender turns an upload into a
 * download. So this is an allow-list: the options a stock rsync client
 * sends to the receiving server for an upload, with checked values, and a
 * specific reason for the dangerous ones we know. Anything unknown is
 * refused. It MUST stay at least as strict as rrsync's own option table
 * (/usr/bin/rrsync) so that a command we accept is never one rrsync then
 * has to catch for us.
 */
#include "rsync_args.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "text.h"
#include "tokenize.h"

#define RSYNC_VALUE_MAX 64
#define RSYNC_PATH_MAX 1024

enum opt_kind {
	OPT_FLAG,       /* no value */
	OPT_NUMBER,     /* a count, size or time: 1M, 1.5k, 30 */
	OPT_WORD,       /* a name or list of names: md5, zstd, latin1 */
	OPT_FORMAT,     /* an output format: %i */
	OPT_PATH,       /* a directory inside incoming */
	OPT_REFUSED,
};

struct long_opt {
	const char *name;
	enum opt_kind kind;
	const char *why;    /* for OPT_REFUSED */
};

static const char why_sender[] =
	"downloads are not allowed: this server only receives uploads";
static const char why_daemon[] =
	"rsync daemon mode and its configuration files are not allowed";
static const char why_files[] =
	"the server does not read or write files named on the command line";
static const char why_delete[] =
	"deleting files through rsync is not allowed (use delete-own)";
static const char why_keep[] =
	"uploads never replace files or keep old copies (rrsync -no-overwrite)";
static const char why_links[] =
	"the server never follows symlinks for a client";
static const char why_owner[] =
	"ownership, ACLs and extended attributes are not kept for uploads";
static const char why_protect[] =
	"arguments sent inside the rsync protocol would bypass these checks";
static const char why_iconv[] =
	"file-name conversion is not allowed: send UTF-8 names (drop --iconv)";
static const char why_rsh[] =
	"-e/--rsh is refused; only the protocol-flag cluster like -logDtpre.iLsfxCIvu may carry 'e'";

/* Sorted by name only for the reader; the lookup is linear. */
static const struct long_opt long_opts[] = {
	{ "append", OPT_FLAG, NULL },
	{ "backup", OPT_REFUSED, why_keep },
	{ "backup-dir", OPT_REFUSED, why_keep },
	{ "block-size", OPT_NUMBER, NULL },
	{ "bwlimit", OPT_NUMBER, NULL },
	{ "checksum-choice", OPT_WORD, NULL },
	{ "checksum-seed", OPT_NUMBER, NULL },
	{ "chown", OPT_REFUSED, why_owner },
	{ "compare-dest", OPT_PATH, NULL },
	{ "compress-choice", OPT_WORD, NULL },
	{ "compress-level", OPT_NUMBER, NULL },
	{ "config", OPT_REFUSED, why_daemon },
	{ "copy-dest", OPT_PATH, NULL },
	{ "copy-dirlinks", OPT_REFUSED, why_links },
	{ "copy-links", OPT_REFUSED, why_links },
	{ "copy-unsafe-links", OPT_REFUSED, why_links },
	{ "daemon", OPT_REFUSED, why_daemon },
	{ "delay-updates", OPT_REFUSED, why_keep },
	{ "dirs", OPT_FLAG, NULL },
	{ "dparam", OPT_REFUSED, why_daemon },
	{ "existing", OPT_FLAG, NULL },
	{ "fake-super", OPT_REFUSED, why_owner },
	{ "files-from", OPT_REFUSED, why_files },
	{ "fsync", OPT_FLAG, NULL },
	{ "fuzzy", OPT_FLAG, NULL },
	{ "group", OPT_FLAG, NULL },
	{ "groupmap", OPT_REFUSED, why_owner },
	{ "hard-links", OPT_FLAG, NULL },
	{ "iconv", OPT_REFUSED, why_iconv },
	{ "ignore-existing", OPT_FLAG, NULL },
	{ "ignore-times", OPT_FLAG, NULL },
	{ "inplace", OPT_FLAG, NULL },
	{ "keep-dirlinks", OPT_REFUSED, why_links },
	{ "link-dest", OPT_PATH, NULL },
	{ "links", OPT_FLAG, NULL },
	{ "log-file", OPT_REFUSED, why_files },
	{ "log-file-format", OPT_REFUSED, why_files },
	{ "log-format", OPT_FORMAT, NULL },
	{ "max-alloc", OPT_NUMBER, NULL },
	{ "max-size", OPT_NUMBER, NULL },
	{ "min-size", OPT_NUMBER, NULL },
	{ "mkpath", OPT_FLAG, NULL },
	{ "modify-window", OPT_NUMBER, NULL },
	{ "munge-links", OPT_FLAG, NULL },
	{ "new-compress", OPT_FLAG, NULL },
	{ "no-W", OPT_FLAG, NULL },
	{ "no-implied-dirs", OPT_FLAG, NULL },
	{ "no-msgs2stderr", OPT_FLAG, NULL },
	{ "no-r", OPT_FLAG, NULL },
	{ "no-relative", OPT_FLAG, NULL },
	{ "no-specials", OPT_FLAG, NULL },
	{ "numeric-ids", OPT_FLAG, NULL },
	{ "old-compress", OPT_FLAG, NULL },
	{ "one-file-system", OPT_FLAG, NULL },
	{ "only-write-batch", OPT_REFUSED, why_files },
	{ "owner", OPT_FLAG, NULL },
	{ "partial", OPT_FLAG, NULL },
	{ "partial-dir", OPT_REFUSED, why_keep },
	{ "perms", OPT_FLAG, NULL },
	{ "preallocate", OPT_FLAG, NULL },
	{ "protect-args", OPT_REFUSED, why_protect },
	{ "read-batch", OPT_REFUSED, why_files },
	{ "recursive", OPT_FLAG, NULL },
	{ "rsh", OPT_REFUSED, why_rsh },
	{ "safe-links", OPT_FLAG, NULL },
	{ "secluded-args", OPT_REFUSED, why_protect },
	{ "sender", OPT_REFUSED, why_sender },
	{ "server", OPT_REFUSED, "--server may only be given once, right after rsync" },
	{ "size-only", OPT_FLAG, NULL },
	{ "specials", OPT_FLAG, NULL },
	{ "stats", OPT_FLAG, NULL },
	{ "suffix", OPT_REFUSED, why_keep },
	{ "super", OPT_REFUSED, why_owner },
	{ "temp-dir", OPT_PATH, NULL },
	{ "times", OPT_FLAG, NULL },
	{ "timeout", OPT_NUMBER, NULL },
	{ "use-qsort", OPT_FLAG, NULL },
	{ "usermap", OPT_REFUSED, why_owner },
	{ "write-batch", OPT_REFUSED, why_files },
};

/* Single-letter options a client may bundle into its flag cluster. */
static const char short_ok[] = "CDEHIJNORSUWcdglmnopqrtuvxyz";

struct short_refusal {
	char letter;
	const char *why;
};

static const struct short_refusal short_refused[] = {
	{ 's', why_protect },
	{ 'b', why_keep },
	{ 'K', why_links },
	{ 'L', why_links },
	{ 'k', why_links },
	{ 'A', why_owner },
	{ 'X', why_owner },
};

static const struct long_opt *long_opt_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(long_opts) / sizeof(long_opts[0]); i++) {
		if (strlen(long_opts[i].name) == len && memcmp(long_opts[i].name, name, len) == 0)
			return &long_opts[i];
	}
	return NULL;
}

static bool all_in(const char *s, const char *set)
{
	return s[strspn(s, set)] == '\0';
}

static int value_check(const struct long_opt *o, const char *v, struct pst_err *e)
{
	static const char alnum[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	enum opt_kind kind = o->kind;
	char what[40];
	char set[80];
	bool ok;

	snprintf(what, sizeof(what), "--%s", o->name);
	if (kind == OPT_PATH)
		return rsync_path_inside(v, what, e);
	strcpy(set, alnum);
	strcat(set, kind == OPT_NUMBER ? ".+" : kind == OPT_WORD ? "._,:+-" : "%._,:-");
	ok = v[0] != '\0' && v[0] != '-' && strlen(v) <= RSYNC_VALUE_MAX && all_in(v, set);
	if (!ok)
		return pst_fail(e, EINVAL, "rsync: %s=%s: refused value (expected %s)", what, v,
				kind == OPT_NUMBER ? "a number like 30, 1.5M" :
				kind == OPT_WORD ? "a name like md5 or zstd" : "a format like %i");
	return 0;
}

int rsync_path_inside(const char *path, const char *what, struct pst_err *e)
{
	const char *p;

	if (path[0] == '\0')
		return pst_fail(e, EINVAL, "rsync: %s: an empty path is refused", what);
	if (path[0] == '/')
		return pst_fail(e, EINVAL,
				"rsync: %s '%s': absolute paths are refused (name a path inside your incoming directory, e.g. HOST: or HOST:subdir/)",
				what, path);
	if (path[0] == '-' || path[0] == '~')
		return pst_fail(e, EINVAL, "rsync: %s '%s': a path may not start with '%c'",
				what, path, path[0]);
	if (strlen(path) > RSYNC_PATH_MAX)
		return pst_fail(e, EINVAL, "rsync: %s: path longer than %d bytes", what, RSYNC_PATH_MAX);
	p = strpbrk(path, "*?[]{}");
	if (p != NULL)
		return pst_fail(e, EINVAL, "rsync: %s '%s': '%c' is refused in paths (rrsync would expand it)",
				what, path, *p);
	for (p = path; p != NULL; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return pst_fail(e, EINVAL, "rsync: %s '%s': '..' points outside your incoming directory",
					what, path);
	}
	return 0;
}

/* "-vlogDtpre.iLsfxCIvu": letters, then optionally 'e' and the protocol info. */
static int cluster_check(const char *word, struct pst_err *e)
{
	const char *p;
	size_t i;

	if ((word[1] == 'B' || word[1] == '@') && str_is_digits(word + 2))
		return 0;
	for (p = word + 1; *p != '\0' && *p != 'e'; p++) {
		for (i = 0; i < sizeof(short_refused) / sizeof(short_refused[0]); i++) {
			if (*p == short_refused[i].letter)
				return pst_fail(e, EINVAL, "rsync: -%c (in %s): %s", *p, word,
						short_refused[i].why);
		}
		if (strchr(short_ok, *p) == NULL)
			return pst_fail(e, EINVAL,
					"rsync: -%c (in %s): not needed for an upload into your incoming directory",
					*p, word);
	}
	if (p == word + 1 && *p == '\0')
		return pst_fail(e, EINVAL, "rsync: '-': not an option");
	if (*p == 'e') {
		p++;
		p += strspn(p, "0123456789");
		if (*p != '.' || !all_in(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"))
			return pst_fail(e, EINVAL, "rsync: %s: %s", word, why_rsh);
	}
	return 0;
}

/* One "--name[=value]" option; *used is set to how many words it took. */
static int long_check(char *const argv[], size_t left, size_t *used, struct pst_err *e)
{
	const char *word = argv[0];
	const char *eq = strchr(word, '=');
	size_t len = eq ? (size_t)(eq - word - 2) : strlen(word) - 2;
	const struct long_opt *o = long_opt_find(word + 2, len);
	const char *value;

	*used = 1;
	if (o == NULL && (strncmp(word + 2, "delete", 6) == 0 || strncmp(word + 2, "remove", 6) == 0 ||
			  strncmp(word + 2, "max-delete", 10) == 0))
		return pst_fail(e, EINVAL, "rsync: %.*s: %s", (int)(len + 2), word, why_delete);
	if (o == NULL)
		return pst_fail(e, EINVAL,
				"rsync: %.*s: not needed for an upload into your incoming directory",
				(int)(len + 2), word);
	if (o->kind == OPT_REFUSED)
		return pst_fail(e, EINVAL, "rsync: --%s: %s", o->name, o->why);
	if (o->kind == OPT_FLAG) {
		if (eq != NULL)
			return pst_fail(e, EINVAL, "rsync: --%s takes no value", o->name);
		return 0;
	}
	if (eq != NULL) {
		value = eq + 1;
	} else {
		if (left < 2)
			return pst_fail(e, EINVAL, "rsync: --%s needs a value", o->name);
		value = argv[1];
		*used = 2;
	}
	return value_check(o, value, e);
}

static int option_check(char *const argv[], size_t left, size_t *used, struct pst_err *e)
{
	const char *word = argv[0];

	*used = 1;
	if (word[0] != '-')
		return pst_fail(e, EINVAL, "rsync: '%s': unexpected argument before the '.' that ends the options",
				word);
	if (strcmp(word, "--") == 0)
		return pst_fail(e, EINVAL, "rsync: '--' is refused");
	if (word[1] == '-')
		return long_check(argv, left, used, e);
	return cluster_check(word, e);
}

int rsync_args_check(size_t argc, char *const argv[], struct pst_err *e)
{
	size_t used;
	size_t i;
	int rc;

	if (argc < 2 || strcmp(argv[1], "--server") != 0)
		return pst_fail(e, EINVAL,
				"rsync: only the server side of an upload is allowed (run rsync on your own machine: rsync FILE HOST:)");
	for (i = 2; i < argc && strcmp(argv[i], ".") != 0; i += used) {
		rc = option_check(argv + i, argc - i, &used, e);
		if (rc < 0)
			return rc;
	}
	if (i == argc)
		return pst_fail(e, EINVAL, "rsync: incomplete server command (no '.' after the options)");
	i++;
	if (argc - i > 1)
		return pst_fail(e, EINVAL, "rsync: more than one destination given");
	if (i < argc)
		return rsync_path_inside(argv[i], "destination", e);
	return 0;
}

static bool is_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._,:/@%+=-", c) != NULL;
}

int rsync_command_format(size_t argc, char *const argv[], char *out, size_t outlen)
{
	const unsigned char *p;
	size_t pos = 0;
	size_t n;
	size_t i;

	for (i = 0; i < argc; i++) {
		if (argv[i][0] == '\0')
			return -EINVAL;
		if (i > 0 && pos + 1 < outlen)
			out[pos++] = ' ';
		for (p = (const unsigned char *)argv[i]; *p != '\0'; p += n) {
			n = *p < 0x80 ? 1 : utf8_seq_len(p, strlen((const char *)p));
			if (n == 0)
				return -EINVAL;
			if (pos + n + 2 > outlen)
				return -ENAMETOOLONG;
			if (!is_plain(*p))
				out[pos++] = '\\';
			memcpy(out + pos, p, n);
			pos += n;
		}
	}
	if (pos + 1 > outlen)
		return -ENAMETOOLONG;
	out[pos] = '\0';
	return 0;
}
