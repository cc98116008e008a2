/*
 * postern-client's code sources: what counts as a code, how a
 * --code-command is split (no shell), and that a code command cannot read
 * the client's stdin (rsync's stream) and must succeed to be believed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"
#include "server_lines.h"

static void test_plausible_codes(void **state)
{
	char longest[CODE_MAX + 2];

	(void)state;
	assert_true(code_is_plausible("123456"));
	assert_true(code_is_plausible("12345678"));
	assert_true(code_is_plausible("y3f2-qipt-aknq-rg4y"));
	assert_false(code_is_plausible(""));
	assert_false(code_is_plausible("123 456"));
	assert_false(code_is_plausible("123456\n"));
	assert_false(code_is_plausible("12\t34"));
	assert_false(code_is_plausible("\x7f" "123"));
	assert_false(code_is_plausible("12\xc3\xa9"));
	memset(longest, '7', sizeof(longest));
	longest[CODE_MAX] = '\0';
	assert_true(code_is_plausible(longest));
	longest[CODE_MAX] = '7';
	longest[CODE_MAX + 1] = '\0';
	assert_false(code_is_plausible(longest));
}

static void free_words(char **argv)
{
	for (size_t i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

static void test_split_is_blanks_only(void **state)
{
	struct pst_err e;
	char **argv = NULL;

	(void)state;
	assert_int_equal(code_command_split("  oathtool\t--totp  -b 'A B'; rm -rf ~ ", &argv, &e), 0);
	assert_string_equal(argv[0], "oathtool");
	assert_string_equal(argv[1], "--totp");
	assert_string_equal(argv[2], "-b");
	/* No quoting and no shell: these are just words. */
	assert_string_equal(argv[3], "'A");
	assert_string_equal(argv[4], "B';");
	assert_string_equal(argv[5], "rm");
	assert_string_equal(argv[7], "~");
	assert_null(argv[8]);
	free_words(argv);
}

static void test_split_refuses_empty_and_huge(void **state)
{
	struct pst_err e;
	char **argv = NULL;
	char many[64 * 2 + 8];

	(void)state;
	assert_true(code_command_split("", &argv, &e) < 0);
	assert_true(code_command_split(" \t ", &argv, &e) < 0);
	assert_non_null(strstr(e.msg, "empty"));
	memset(many, 0, sizeof(many));
	for (int i = 0; i < 65; i++)
		strcat(many, "x ");
	assert_true(code_command_split(many, &argv, &e) < 0);
	assert_non_null(strstr(e.msg, "too many words"));
}

static int obtain(enum code_source src, const char *arg, char *code, struct pst_err *e)
{
	struct client_opts o = { .code_source = src, .code_arg = arg };

	return code_obtain(&o, "Verification code: ", code, CODE_MAX + 1, e);
}

static void test_code_from_file(void **state)
{
	char path[] = "/tmp/postern-client-code-XXXXXX";
	char code[CODE_MAX + 1];
	struct pst_err e;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "654321\r\nignored\n", 16), 16);
	close(fd);
	assert_int_equal(obtain(CODE_FROM_FILE, path, code, &e), 0);
	assert_string_equal(code, "654321");

	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "65 43 21\n", 9), 9);
	close(fd);
	assert_true(obtain(CODE_FROM_FILE, path, code, &e) < 0);
	assert_non_null(strstr(e.msg, "nothing was sent"));
	unlink(path);

	assert_true(obtain(CODE_FROM_FILE, "/nonexistent/code", code, &e) < 0);
	assert_non_null(strstr(e.msg, "/nonexistent/code"));
}

static void test_code_from_command(void **state)
{
	char code[CODE_MAX + 1];
	struct pst_err e;

	(void)state;
	assert_int_equal(obtain(CODE_FROM_COMMAND, "/bin/echo 112233", code, &e), 0);
	assert_string_equal(code, "112233");
	/* Found through PATH, still without a shell: ";echo" is part of an argument. */
	assert_int_equal(obtain(CODE_FROM_COMMAND, "printf %s 445566;echo", code, &e), 0);
	assert_string_equal(code, "445566;echo");
	assert_true(obtain(CODE_FROM_COMMAND, "/bin/false", code, &e) < 0);
	assert_non_null(strstr(e.msg, "failed"));
	assert_true(obtain(CODE_FROM_COMMAND, "/nonexistent/tool", code, &e) < 0);
}

/* The command's stdin is /dev/null, never ours: cat gets nothing. */
static void test_code_command_cannot_read_stdin(void **state)
{
	char code[CODE_MAX + 1];
	struct pst_err e;
	int pfd[2], saved = dup(STDIN_FILENO);

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], "999999\n", 7), 7);
	close(pfd[1]);
	assert_int_equal(dup2(pfd[0], STDIN_FILENO), STDIN_FILENO);
	close(pfd[0]);
	assert_true(obtain(CODE_FROM_COMMAND, "/bin/cat", code, &e) < 0);
	/* The data is still there for the real reader. */
	assert_int_equal(read(STDIN_FILENO, code, 7), 7);
	assert_memory_equal(code, "999999\n", 7);
	dup2(saved, STDIN_FILENO);
	close(saved);
}

/* What a hostile server prints reaches the maintainer's terminal without controls. */
static void test_server_text_printable(void **state)
{
	static const char in[] = "a\x1b[2J\xc2\x9b" "b\x9b" "c\xe2\x80\xae" "d caf\xc3\xa9";
	char out[64];

	(void)state;
	server_text_printable(out, sizeof(out), in);
	assert_string_equal(out, "a?[2J??b?c???d caf\xc3\xa9");
	server_text_printable(out, 4, in);
	assert_string_equal(out, "a?[");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plausible_codes),
		cmocka_unit_test(test_server_text_printable),
		cmocka_unit_test(test_split_is_blanks_only),
		cmocka_unit_test(test_split_refuses_empty_and_huge),
		cmocka_unit_test(test_code_from_file),
		cmocka_unit_test(test_code_from_command),
		cmocka_unit_test(test_code_command_cannot_read_stdin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
