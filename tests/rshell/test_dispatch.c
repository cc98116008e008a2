/* shell_dispatch(): the five commands, their arguments, and the rsync
 * server command lines real clients send or attackers try. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "dispatch.h"
#include "rsync_args.h"

static struct shell_decision d;

static void allowed(const char *cmd, enum shell_command expect)
{
	if (shell_dispatch(cmd, strlen(cmd), &d) != expect)
		fail_msg("\"%s\" refused: %s", cmd, d.why.msg);
	assert_int_equal(d.command, expect);
}

static void refused(const char *cmd, const char *needle)
{
	if (shell_dispatch(cmd, strlen(cmd), &d) != SHELL_REFUSED)
		fail_msg("\"%s\" was allowed", cmd);
	assert_int_equal(d.command, SHELL_REFUSED);
	if (strstr(d.why.msg, needle) == NULL)
		fail_msg("\"%s\": message \"%s\" lacks \"%s\"", cmd, d.why.msg, needle);
}

/* What rsync 3.2/3.5 clients send for pushes (captured with a fake -e). */
static void test_rsync_client_pushes(void **state)
{
	static const char *const ok[] = {
		"rsync --server -e.LsfxCIvu . .",
		"rsync --server -logDtpre.iLsfxCIvu . .",
		"rsync --server -vlogDtpre.iLsfxCIvu --partial . .",
		"rsync --server -vlogDtprze.iLsfxCIvu . subdir/",
		"rsync --server -e.LsfxCIvu --temp-dir .tmp . .",
		"rsync --server -e.LsfxCIvu --link-dest old . .",
		"rsync --server -e.LsfxCIvu --compare-dest=old/x . .",
		"rsync --server -vlogDtpre.iLsfxCIvu --append . .",
		"rsync --server -e.LsfxCIvu --log-format=%i . .",
		"rsync --server -e.LsfxCIvu --checksum-choice=md5 . .",
		"rsync --server -e.LsfxCIvu --timeout=5 --bwlimit=10 . .",
		"rsync --server -Re.LsfxCIvu . .",
		"rsync --server -e.LsfxCIvu --mkpath . .",
		"rsync --server -myHxSe.LsfxCIvu . .",
		"rsync --server -uWcze.LsfxCIvu . .",
		"rsync --server -e.LsfxCIvu --numeric-ids . .",
		"rsync --server -e.LsfxCIvu -B4096 . .",
		"rsync --server -e.LsfxCIvu --modify-window=2 . .",
		"rsync --server -e.LsfxCIvu --ignore-existing --size-only . .",
		"rsync --server -e.LsfxCIvu . sub\\ dir/x\\;y",
		"rsync --server -e.LsfxCIvu . ./-dash",
		"rsync --server -e31.LsfxC . G\xc3\xb6llnitz.tar.xz",
		"rsync --server -vlogDtpre.iLsfxCIvu .",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		allowed(ok[i], SHELL_RSYNC);
}

static void test_rsync_refusals(void **state)
{
	(void)state;
	refused("rsync", "only the server side");
	refused("rsync -av . host:", "only the server side");
	refused("rsync --server --sender -vlogDtpre.iLsfxCIvu . file", "downloads are not allowed");
	refused("rsync --server --daemon .", "daemon");
	refused("rsync --server --daemon --config=/tmp/x .", "daemon");
	refused("rsync --server --config=/tmp/rsyncd.conf . .", "daemon");
	refused("rsync --server -M--dparam=x . .", "-M");
	refused("rsync --server --dparam=pidfile=/tmp/x . .", "daemon");
	refused("rsync --server --log-file=/tmp/x . .", "--log-file");
	refused("rsync --server --log-file-format=%i . .", "--log-file-format");
	refused("rsync --server -e.LsfxCIvu --iconv=latin1 . .", "--iconv");
	refused("rsync --server --write-batch=x . .", "--write-batch");
	refused("rsync --server --read-batch=x . .", "--read-batch");
	refused("rsync --server --only-write-batch=x . .", "--only-write-batch");
	refused("rsync --server --files-from=/etc/passwd . .", "--files-from");
	refused("rsync --server -e sh . .", "-e/--rsh");
	refused("rsync --server -e. sh . .", "unexpected argument");
	refused("rsync --server -esh . .", "-e/--rsh");
	refused("rsync --server -ve . .", "-e/--rsh");
	refused("rsync --server -e . .", "-e/--rsh");
	refused("rsync --server --rsh=sh . .", "-e/--rsh");
	refused("rsync --server -e.Ls/x . .", "-e/--rsh");
	refused("rsync --server -e.LsfxCIvu --delete . .", "deleting files");
	refused("rsync --server -e.LsfxCIvu --delete-after . .", "deleting files");
	refused("rsync --server -e.LsfxCIvu --delete-excluded . .", "deleting files");
	refused("rsync --server -e.LsfxCIvu --remove-source-files . .", "deleting files");
	refused("rsync --server -e.LsfxCIvu --max-delete=1 . .", "deleting files");
	refused("rsync --server -e.LsfxCIvu --link-dest / . .", "absolute paths are refused");
	refused("rsync --server -e.LsfxCIvu --link-dest=/ . .", "absolute paths are refused");
	refused("rsync --server -e.LsfxCIvu --copy-dest ../other . .", "'..' points outside");
	refused("rsync --server -e.LsfxCIvu --compare-dest=a/../../b . .", "'..'");
	refused("rsync --server -e.LsfxCIvu --temp-dir /tmp . .", "absolute");
	refused("rsync --server -e.LsfxCIvu --temp-dir", "needs a value");
	refused("rsync --server -e.LsfxCIvu --partial-dir .p . .", "-no-overwrite");
	refused("rsync --server -be.LsfxCIvu --backup-dir x . .", "-b (in");
	refused("rsync --server -e.LsfxCIvu --backup-dir=x . .", "--backup-dir");
	refused("rsync --server -e.LsfxCIvu --delay-updates . .", "--delay-updates");
	refused("rsync --server -se.LsfxCIvu", "-s (in");
	refused("rsync --server --protect-args . .", "bypass");
	refused("rsync --server -logDtpAXre.iLsfxCIvu . .", "-A (in");
	refused("rsync --server -Le.LsfxCIvu . .", "symlinks");
	refused("rsync --server -Ke.LsfxCIvu . .", "symlinks");
	refused("rsync --server --copy-unsafe-links . .", "symlinks");
	refused("rsync --server --server . .", "only be given once");
	refused("rsync --server --chmod=u+s . .", "not needed");
	refused("rsync --server --super . .", "ownership");
	refused("rsync --server --partial=x . .", "takes no value");
	refused("rsync --server --timeout=$(id) . .", "'$'");
	refused("rsync --server --timeout=-1 . .", "refused value");
	refused("rsync --server --log-format=%i\\ x . .", "refused value");
	refused("rsync --server -e.LsfxCIvu . /etc", "absolute paths");
	refused("rsync --server -e.LsfxCIvu . ../x", "'..'");
	refused("rsync --server -e.LsfxCIvu . a/..", "'..'");
	refused("rsync --server -e.LsfxCIvu . -x", "may not start with '-'");
	refused("rsync --server -e.LsfxCIvu . '~root'", "may not start with '~'");
	refused("rsync --server -e.LsfxCIvu . 'a*'", "rrsync would expand");
	refused("rsync --server -e.LsfxCIvu . '{a,b}'", "rrsync would expand");
	refused("rsync --server -e.LsfxCIvu . a b", "more than one destination");
	refused("rsync --server -e.LsfxCIvu . ''", "empty path");
	refused("rsync --server -e.LsfxCIvu -- . .", "'--' is refused");
	refused("rsync --server -e.LsfxCIvu x . .", "unexpected argument");
	refused("rsync --server -e.LsfxCIvu", "no '.'");
	refused("rsync --server - . .", "not an option");
	refused("rsync --server -hP . .", "-h");
	refused("RSYNC --server . .", "not an allowed command");
	refused("/usr/bin/rsync --server . .", "without a path");
}

static void test_release_commands(void **state)
{
	(void)state;
	allowed("install-module gtk-4.14.0.tar.xz", SHELL_INSTALL_MODULE);
	allowed("install-module --dry-run gtk-4.14.0.tar.xz glib-2.80.0.tar.xz", SHELL_INSTALL_MODULE);
	allowed("install-module --force gtk-4.14.0.tar.xz", SHELL_INSTALL_MODULE);
	allowed("install-module --force --dry-run gtk-4.14.0.tar.xz", SHELL_INSTALL_MODULE);
	allowed("list", SHELL_LIST);
	allowed("list gtk", SHELL_LIST);
	allowed("delete-own gtk-4.14.0.tar.xz", SHELL_DELETE_OWN);
	allowed("help", SHELL_HELP);
	refused("install-module", "no file given");
	refused("install-module --dry-run", "no file given");
	refused("install-module --dry-run --dry-run x.tar.xz", "may not start with '-'");
	refused("install-module --force --force x.tar.xz", "may not start with '-'");
	refused("install-module -- x.tar.xz", "may not start with '-'");
	refused("install-module -rf x", "may not start with '-'");
	refused("install-module gtk.tar.xz --force", "may not start with '-'");
	refused("install-module ../gtk-1.tar.xz", "without '/'");
	refused("install-module /srv/x/gtk-1.tar.xz", "without '/'");
	refused("install-module .hidden", "may not start with '.'");
	refused("install-module ''", "empty file name");
	refused("list gtk glib", "too many");
	refused("list ../x", "not a module name");
	refused("list -a", "not a module name");
	refused("delete-own", "exactly one");
	refused("delete-own a b", "exactly one");
	refused("delete-own --all", "may not start with '-'");
	/* What rsync can leave in incoming: after '--' any one plain name. */
	allowed("delete-own -- -rf", SHELL_DELETE_OWN);
	allowed("delete-own -- --all", SHELL_DELETE_OWN);
	allowed("delete-own .partial.tar.xz.Xy12", SHELL_DELETE_OWN);
	allowed("delete-own -- .hidden-dir", SHELL_DELETE_OWN);
	allowed("delete-own -- gtk-4.14.0.tar.xz", SHELL_DELETE_OWN);
	refused("delete-own -rf", "delete-own -- -rf");
	refused("delete-own -- ..", "without '/'");
	refused("delete-own -- .", "without '/'");
	refused("delete-own -- a/b", "without '/'");
	refused("delete-own -- ''", "without '/'");
	refused("delete-own -- a b", "exactly one");
	refused("delete-own a --", "exactly one");
	refused("help --help", "takes no arguments");
	refused("help me", "takes no arguments");
}

static void test_unknown_commands(void **state)
{
	(void)state;
	refused("ls", "'ls': not an allowed command (allowed: rsync, install-module, list, delete-own, enroll, help)");
	refused("/bin/sh .ssh/rc", "'/bin/sh': not an allowed command (commands are named without a path");
	refused("sh -c id", "'sh'");
	refused("scp -t .", "'scp'");
	refused("/usr/lib/openssh/sftp-server", "without a path");
	refused("Help", "'Help'");
	refused("git-upload-pack '/x'", "'git-upload-pack'");
	refused("", "no command given");
}

static void test_command_format_round_trip(void **state)
{
	static const char *const cmds[] = {
		"rsync --server -vlogDtpre.iLsfxCIvu --log-format=%i . .",
		"rsync --server -e.LsfxCIvu . 'sub dir/x;y'",
		"rsync --server -e.LsfxCIvu . \"it's\\\\here\"",
		"rsync --server -e.LsfxCIvu . G\xc3\xb6llnitz\xc2\xa0" "x",
	};
	static char line[2 * SHELL_CMD_MAX + SHELL_WORDS_MAX + 1];
	static struct shell_words again;
	struct pst_err e = { "" };
	size_t i;
	size_t j;

	(void)state;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		allowed(cmds[i], SHELL_RSYNC);
		assert_int_equal(rsync_command_format(d.words.n, d.words.word, line, sizeof(line)), 0);
		assert_int_equal(shell_tokenize(line, strlen(line), &again, &e), 0);
		assert_int_equal(again.n, d.words.n);
		for (j = 0; j < again.n; j++)
			assert_string_equal(again.word[j], d.words.word[j]);
	}
	assert_int_equal(rsync_command_format(d.words.n, d.words.word, line, 8), -36);
}

static void test_format_escapes(void **state)
{
	char w0[] = "rsync", w1[] = "--server", w2[] = ".", w3[] = "a b;c\xc2\xa0" "d";
	char *words[] = { w0, w1, w2, w3, NULL };
	char line[64];

	(void)state;
	assert_int_equal(rsync_command_format(4, words, line, sizeof(line)), 0);
	assert_string_equal(line, "rsync --server . a\\ b\\;c\\\xc2\xa0" "d");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rsync_client_pushes),
		cmocka_unit_test(test_rsync_refusals),
		cmocka_unit_test(test_release_commands),
		cmocka_unit_test(test_unknown_commands),
		cmocka_unit_test(test_command_format_round_trip),
		cmocka_unit_test(test_format_escapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
