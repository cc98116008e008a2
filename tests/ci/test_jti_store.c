/*
 * The used-token store (ci/jti_store.c) in a real directory: a token is
 * accepted once and refused after, per issuer; of many processes racing
 * with one token exactly one wins; records are 0600, named by a hash, no
 * temporary stays; pruning forgets only expired tokens; a store directory
 * others may read is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jti_store.h"

#define RACERS 8

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ptjti-XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static size_t entries(size_t *temps)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	*temps = 0;
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' && strstr(de->d_name, ".tmp") != NULL)
			(*temps)++;
		else if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return n;
}

static void test_once(void **state)
{
	struct jti_store s;
	struct pst_err e = { "" };
	size_t temps;

	(void)state;
	assert_int_equal(jti_store_open(dir, &s, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "jti-1", 1800000300, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "jti-1", 1800000300, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "this token was used before"));
	assert_int_equal(jti_store_use(&s, "github", "jti-1", 1800000300, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "../../etc/passwd\n", 1800000300, &e), 0);
	assert_int_equal(entries(&temps), 3);
	assert_int_equal(temps, 0);
	jti_store_close(&s);
}

static void test_records_private(void **state)
{
	struct jti_store s;
	struct pst_err e = { "" };
	DIR *d;
	struct dirent *de;
	struct stat st;
	char path[512];

	(void)state;
	assert_int_equal(jti_store_open(dir, &s, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "jti-p", 1800000300, &e), 0);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		assert_int_equal(strlen(de->d_name), 64);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0600);
	}
	closedir(d);
	jti_store_close(&s);
}

static void test_race_one_wins(void **state)
{
	struct jti_store s;
	struct pst_err e = { "" };
	pid_t pids[RACERS];
	int i, wins = 0, replays = 0, status;

	(void)state;
	assert_int_equal(jti_store_open(dir, &s, &e), 0);
	for (i = 0; i < RACERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			int rc = jti_store_use(&s, "gitlab", "jti-race", 1800000300, NULL);
			_exit(rc == 0 ? 0 : rc == -EEXIST ? 1 : 2);
		}
	}
	for (i = 0; i < RACERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		wins += WEXITSTATUS(status) == 0;
		replays += WEXITSTATUS(status) == 1;
	}
	assert_int_equal(wins, 1);
	assert_int_equal(replays, RACERS - 1);
	jti_store_close(&s);
}

static void test_prune(void **state)
{
	struct jti_store s;
	struct pst_err e = { "" };
	size_t temps;
	char junk[256];
	int fd;

	(void)state;
	assert_int_equal(jti_store_open(dir, &s, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "old", 1800000000, &e), 0);
	assert_int_equal(jti_store_use(&s, "gitlab", "live", 1800000600, &e), 0);
	snprintf(junk, sizeof(junk), "%s/not-a-record", dir);
	fd = open(junk, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* within the skew, the old one stays */
	assert_int_equal(jti_store_prune(&s, 1800000050, 60, &e), 0);
	assert_int_equal(jti_store_prune(&s, 1800000100, 60, &e), 1);
	assert_int_equal(entries(&temps), 2);   /* live + not-a-record */
	assert_int_equal(jti_store_use(&s, "gitlab", "live", 1800000600, &e), -EEXIST);
	jti_store_close(&s);
}

static void test_open_refuses_shared_dir(void **state)
{
	struct jti_store s;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(chmod(dir, 0755), 0);
	assert_true(jti_store_open(dir, &s, &e) < 0);
	assert_non_null(strstr(e.msg, "the used-token store"));
	assert_int_equal(chmod(dir, 0700), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_records_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_race_one_wins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refuses_shared_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
