/* Invocation modes and the environment: which source each mode trusts,
 * which inherited variables are refused, and what rrsync gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "env.h"
#include "invocation.h"

static void test_login_shell_trusts_only_dash_c(void **state)
{
	const char *argv[] = { "postern-shell", "-c", "list", NULL };
	struct shell_invocation inv;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(shell_invocation_parse(3, argv, "rsync --server --sender . x", &inv, &e), 0);
	assert_int_equal(inv.mode, SHELL_MODE_LOGIN);
	assert_string_equal(inv.command, "list");
	assert_string_equal(shell_mode_name(inv.mode), "login_shell");
}

static void test_interactive_login_ignores_variable(void **state)
{
	const char *argv[] = { "-postern-shell", NULL };
	struct shell_invocation inv;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(shell_invocation_parse(1, argv, "help", &inv, &e), 0);
	assert_int_equal(inv.mode, SHELL_MODE_LOGIN);
	assert_null(inv.command);
}

static void test_forced_mode_reads_variable(void **state)
{
	const char *argv[] = { "/usr/bin/postern-shell", NULL };
	struct shell_invocation inv;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(shell_invocation_parse(1, argv, "list gtk", &inv, &e), 0);
	assert_int_equal(inv.mode, SHELL_MODE_FORCED);
	assert_string_equal(inv.command, "list gtk");
	assert_string_equal(shell_mode_name(inv.mode), "forced");
	assert_int_equal(shell_invocation_parse(1, argv, NULL, &inv, &e), 0);
	assert_null(inv.command);
}

static void test_other_argv_refused(void **state)
{
	const char *a[] = { "postern-shell", "-c", NULL };
	const char *b[] = { "postern-shell", "-c", "help", "extra", NULL };
	const char *c[] = { "postern-shell", "-i", "help", NULL };
	const char *d[] = { "postern-shell", "--help", NULL };
	const char *z[] = { NULL };
	struct shell_invocation inv;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(shell_invocation_parse(2, a, NULL, &inv, &e), -22);
	assert_non_null(strstr(e.msg, "unexpected arguments"));
	assert_int_equal(shell_invocation_parse(4, b, NULL, &inv, &e), -22);
	assert_int_equal(shell_invocation_parse(3, c, NULL, &inv, &e), -22);
	assert_int_equal(shell_invocation_parse(2, d, "help", &inv, &e), -22);
	assert_int_equal(shell_invocation_parse(0, z, "help", &inv, &e), -22);
}

static void test_lang_names(void **state)
{
	(void)state;
	assert_true(lang_name_valid("C"));
	assert_true(lang_name_valid("POSIX"));
	assert_true(lang_name_valid("C.UTF-8"));
	assert_true(lang_name_valid("en_GB.UTF-8"));
	assert_true(lang_name_valid("de_DE"));
	assert_true(lang_name_valid("sr_RS@latin"));
	assert_true(lang_name_valid("ca_ES.UTF-8@valencia"));
	assert_false(lang_name_valid(""));
	assert_false(lang_name_valid("../../tmp/x"));
	assert_false(lang_name_valid("en_GB.UTF-8/../x"));
	assert_false(lang_name_valid("en_GB.UTF-8 x"));
	assert_false(lang_name_valid("e"));
	assert_false(lang_name_valid("en_"));
	assert_false(lang_name_valid("C."));
}

static void test_ssh_connection(void **state)
{
	(void)state;
	assert_true(ssh_connection_valid("192.0.2.7 50122 192.0.2.1 22"));
	assert_true(ssh_connection_valid("2001:db8::7 50122 2001:db8::1 22"));
	assert_false(ssh_connection_valid("192.0.2.7 50122 192.0.2.1"));
	assert_false(ssh_connection_valid("192.0.2.7 50122 192.0.2.1 22 x"));
	assert_false(ssh_connection_valid("192.0.2.7  50122 192.0.2.1 22"));
	assert_false(ssh_connection_valid("evil\n 1 2 3"));
	assert_false(ssh_connection_valid("192.0.2.7 123456 192.0.2.1 22"));
	assert_false(ssh_connection_valid(""));
}

static void test_unsafe_variables(void **state)
{
	const char *clean[] = { "HOME=/x", "LANG=C", "BASH_ENV=/tmp/x", "ENV=/tmp/x", "IFS=/",
			  "TMPDIR=/tmp/u", "LDX=1", NULL };
	const char *preload[] = { "HOME=/x", "LD_PRELOAD=/tmp/evil.so", NULL };
	const char *audit[] = { "LD_AUDIT=/tmp/a.so", NULL };
	const char *gconv[] = { "GCONV_PATH=/tmp", NULL };
	const char *locpath[] = { "LOCPATH=/tmp", NULL };
	char name[64];

	(void)state;
	assert_false(env_find_unsafe(clean, name, sizeof(name)));
	assert_true(env_find_unsafe(preload, name, sizeof(name)));
	assert_string_equal(name, "LD_PRELOAD");
	assert_true(env_find_unsafe(audit, name, sizeof(name)));
	assert_string_equal(name, "LD_AUDIT");
	assert_true(env_find_unsafe(gconv, name, sizeof(name)));
	assert_true(env_find_unsafe(locpath, name, sizeof(name)));
	assert_string_equal(name, "LOCPATH");
}

static void test_take_and_build(void **state)
{
	const char *envp[] = { "SSH_CONNECTION=192.0.2.7 50122 192.0.2.1 22", "LANG=../../x",
			 "SSH_ORIGINAL_COMMAND=list", "BASH_ENV=/tmp/x", "PYTHONPATH=/tmp",
			 "PATH=/tmp/evil", NULL };
	const struct shell_account acct = { "alice", "/home/alice" };
	struct spawn_env env = { NULL, 0, 0 };
	struct shell_inherited in;
	char *const *vars;
	size_t i;

	(void)state;
	assert_int_equal(shell_env_take(envp, &in), 0);
	assert_string_equal(in.ssh_connection, "192.0.2.7 50122 192.0.2.1 22");
	assert_null(in.lang);
	assert_string_equal(in.original_command, "list");
	assert_string_equal(in.unsafe, "");
	assert_int_equal(shell_env_build(&env, &acct, &in, "rsync --server . ."), 0);
	vars = spawn_env_array(&env);
	{
		const char *const expect[] = {
			"PATH=/usr/bin:/bin", "HOME=/home/alice", "USER=alice", "LOGNAME=alice",
			"LANG=C.UTF-8", "SSH_CONNECTION=192.0.2.7 50122 192.0.2.1 22",
			"SSH_ORIGINAL_COMMAND=rsync --server . .", "PYTHONNOUSERSITE=1", NULL,
		};
		for (i = 0; expect[i] != NULL; i++)
			assert_string_equal(vars[i], expect[i]);
		assert_null(vars[i]);
	}
	spawn_env_free(&env);
	shell_env_release(&in);
}

/* Only what rrsync decodes as UTF-8 is passed on (a Latin-1 LANG is
 * tested end to end in test-rsync.sh, which can compile that locale). */
static void test_lang_kept(void **state)
{
	const char *c[] = { "LANG=C", NULL };
	const char *utf8[] = { "LANG=C.UTF-8", NULL };
	const char *missing[] = { "LANG=xx_YY.UTF-8", NULL };
	struct shell_inherited in;

	(void)state;
	assert_int_equal(shell_env_take(c, &in), 0);
	assert_string_equal(in.lang, "C");
	shell_env_release(&in);
	assert_int_equal(shell_env_take(utf8, &in), 0);
	assert_string_equal(in.lang, "C.UTF-8");
	shell_env_release(&in);
	assert_int_equal(shell_env_take(missing, &in), 0);
	assert_null(in.lang);
	shell_env_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_login_shell_trusts_only_dash_c),
		cmocka_unit_test(test_interactive_login_ignores_variable),
		cmocka_unit_test(test_forced_mode_reads_variable),
		cmocka_unit_test(test_other_argv_refused),
		cmocka_unit_test(test_lang_names),
		cmocka_unit_test(test_ssh_connection),
		cmocka_unit_test(test_unsafe_variables),
		cmocka_unit_test(test_take_and_build),
		cmocka_unit_test(test_lang_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
