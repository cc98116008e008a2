#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

static void test_env_built_from_scratch(void **state)
{
	struct spawn_env env = { 0 };
	char *const *arr;

	(void)state;
	assert_int_equal(spawn_env_add(&env, "MODULE", "gtk"), 0);
	assert_int_equal(spawn_env_add(&env, "lower", "x"), -EINVAL);
	assert_int_equal(spawn_env_add(&env, "A=B", "x"), -EINVAL);
	assert_int_equal(spawn_env_add(&env, "VERSION", "4.14.0"), 0);
	arr = spawn_env_array(&env);
	assert_string_equal(arr[0], "MODULE=gtk");
	assert_string_equal(arr[1], "VERSION=4.14.0");
	assert_null(arr[2]);
	spawn_env_free(&env);
	assert_null(spawn_env_array(&env)[0]);
}

static void test_child_sees_only_given_env_and_no_fds(void **state)
{
	/* The child reports its environment and open fds through a file we
	 * give it by name, since its stdout is /dev/null by design. */
	char out[] = "/tmp/postern-spawn-XXXXXX";
	const char *argv[] = { "/bin/sh", "-c",
		"{ env; ls /proc/self/fd; } > \"$OUT\"", NULL };
	struct spawn_env env = { 0 };
	char buf[4096] = { 0 };
	int status = -1;
	int stray;
	int fd;

	(void)state;
	fd = mkstemp(out);
	assert_true(fd >= 0);
	stray = open("/dev/null", O_RDONLY); /* no O_CLOEXEC on purpose */
	assert_true(stray > 2);
	assert_int_equal(spawn_env_add(&env, "OUT", out), 0);
	assert_int_equal(spawn_wait(argv, spawn_env_array(&env), 10, &status, NULL), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(read(fd, buf, sizeof(buf) - 1) > 0);
	assert_non_null(strstr(buf, "OUT="));
	assert_null(strstr(buf, "HOME="));
	assert_null(strstr(buf, "LD_"));
	{
		char name[16];
		snprintf(name, sizeof(name), "\n%d\n", stray);
		assert_null(strstr(buf, name));
	}
	close(stray);
	close(fd);
	unlink(out);
	spawn_env_free(&env);
}

static void test_timeout_kills(void **state)
{
	const char *argv[] = { "/bin/sleep", "30", NULL };
	char *const envp[] = { NULL };
	struct pst_err e;
	int status = 0;

	(void)state;
	assert_int_equal(spawn_wait(argv, envp, 1, &status, &e), -ETIMEDOUT);
	assert_true(WIFSIGNALED(status));
	assert_non_null(strstr(e.msg, "killed after 1 seconds"));
}

static void test_capture_reads_stdout_not_stderr(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; ls /proc/self/fd", NULL };
	char *const envp[] = { NULL };
	char buf[256];
	size_t len = 0;
	int status = -1;
	struct pst_err e;

	(void)state;
	assert_int_equal(spawn_capture(argv, envp, 10, buf, sizeof(buf) - 1, &len, &status, &e), 0);
	buf[len] = '\0';
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* stdout only, and the child held fds 0-2 and the one ls opened, nothing else. */
	assert_string_equal(buf, "out\n0\n1\n2\n3\n");
}

static void test_capture_diag_keeps_stderr_apart(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *const envp[] = { NULL };
	char buf[64], diag[5];
	size_t len = 0;
	int status = -1;
	struct pst_err e;

	(void)state;
	assert_int_equal(spawn_capture_diag(argv, envp, 10, buf, sizeof(buf) - 1, &len, diag,
					    sizeof(diag), &status, &e), 0);
	buf[len] = '\0';
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_string_equal(buf, "out\n");
	assert_string_equal(diag, "err\n");
	/* Cut at the cap, still a string. */
	argv[2] = "echo longer-than-five >&2";
	assert_int_equal(spawn_capture_diag(argv, envp, 10, buf, sizeof(buf), &len, diag,
					    sizeof(diag), &status, &e), 0);
	assert_int_equal(len, 0);
	assert_string_equal(diag, "long");
}

static void test_capture_cap_and_timeout(void **state)
{
	const char *loud[] = { "/bin/sh", "-c", "while :; do echo xxxxxxxx; done", NULL };
	const char *silent[] = { "/bin/sleep", "30", NULL };
	char *const envp[] = { NULL };
	char buf[64];
	size_t len = 0;
	int status = 0;
	struct pst_err e;

	(void)state;
	assert_int_equal(spawn_capture(loud, envp, 10, buf, sizeof(buf), &len, &status, &e), -EFBIG);
	assert_int_equal(len, sizeof(buf));
	assert_true(WIFSIGNALED(status));
	assert_int_equal(spawn_capture(silent, envp, 1, buf, sizeof(buf), &len, &status, &e),
			 -ETIMEDOUT);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_non_null(strstr(e.msg, "killed after 1 seconds"));
}

static void test_relative_program_refused(void **state)
{
	const char *argv[] = { "sh", NULL };
	char *const envp[] = { NULL };
	int status;

	(void)state;
	assert_int_equal(spawn_wait(argv, envp, 0, &status, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_built_from_scratch),
		cmocka_unit_test(test_child_sees_only_given_env_and_no_fds),
		cmocka_unit_test(test_timeout_kills),
		cmocka_unit_test(test_relative_program_refused),
		cmocka_unit_test(test_capture_reads_stdout_not_stderr),
		cmocka_unit_test(test_capture_cap_and_timeout),
		cmocka_unit_test(test_capture_diag_keeps_stderr_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
