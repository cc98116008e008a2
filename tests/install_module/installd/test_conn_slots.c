/*
 * Unit tests of the accept loop's slot bookkeeping (conn_slots.c): the
 * per-uid cap, the working pool that lock waiters leave, the hard total, and
 * a waiting flag set by a real forked handler through the shared map.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "conn_slots.h"

static int setup(void **state)
{
	static struct conn_slots s;
	struct pst_err e;

	if (conn_slots_init(&s, &e) < 0)
		return -1;
	*state = &s;
	return 0;
}

static int teardown(void **state)
{
	conn_slots_fini(*state);
	return 0;
}

/* Fill n slots for uid with made-up pids from *next_pid. */
static void fill(struct conn_slots *s, uid_t uid, int n, pid_t *next_pid)
{
	for (int i = 0; i < n; i++) {
		int idx = conn_slots_take(s, uid, true);

		assert_true(idx >= 0);
		conn_slots_set_pid(s, idx, (*next_pid)++);
	}
}

static void test_per_uid_count(void **state)
{
	struct conn_slots *s = *state;
	pid_t pid = 1000;

	fill(s, 1001, CONN_SLOTS_PER_UID, &pid);
	fill(s, 1002, 3, &pid);
	assert_int_equal(conn_slots_of_uid(s, 1001), CONN_SLOTS_PER_UID);
	assert_int_equal(conn_slots_of_uid(s, 1002), 3);
	assert_int_equal(conn_slots_of_uid(s, 1003), 0);
	/* A handler for nobody (mirror_sync) is nobody's connection. */
	assert_true(conn_slots_take(s, 1003, false) >= 0);
	assert_int_equal(conn_slots_of_uid(s, 1003), 0);
	assert_true(conn_slots_free_pid(s, 1000));
	assert_false(conn_slots_free_pid(s, 1000));
	assert_false(conn_slots_free_pid(s, 999999));
	assert_int_equal(conn_slots_of_uid(s, 1001), CONN_SLOTS_PER_UID - 1);
}

static void test_waiters_leave_the_working_pool(void **state)
{
	struct conn_slots *s = *state;
	pid_t pid = 2000;
	int idx;

	fill(s, 1001, CONN_SLOTS_ACTIVE_MAX, &pid);
	assert_false(conn_slots_room(s));
	assert_int_equal(conn_slots_take(s, 1002, true), -1);
	/* One of them waits for a module lock: room for one more. */
	atomic_store(&s->waiting[0], 1);
	assert_int_equal(conn_slots_active(s), CONN_SLOTS_ACTIVE_MAX - 1);
	assert_true(conn_slots_room(s));
	idx = conn_slots_take(s, 1002, true);
	assert_true(idx > 0);
	conn_slots_set_pid(s, idx, pid++);
	assert_false(conn_slots_room(s));
	/* The waiter still counts for its user. */
	assert_int_equal(conn_slots_of_uid(s, 1001), CONN_SLOTS_ACTIVE_MAX);
	/* Freed, its flag is cleared for the next handler in that slot. */
	conn_slots_free(s, 0);
	assert_int_equal(atomic_load(&s->waiting[0]), 0);
}

static void test_total_bound(void **state)
{
	struct conn_slots *s = *state;
	pid_t pid = 3000;
	int i;

	for (i = 0; i < CONN_SLOTS_MAX; i++) {
		int idx = conn_slots_take(s, (uid_t)(5000 + i), true);

		assert_int_equal(idx, i);
		conn_slots_set_pid(s, idx, pid++);
		/* Every one waits: only the total bounds them. */
		atomic_store(&s->waiting[idx], 1);
	}
	assert_int_equal(conn_slots_active(s), 0);
	assert_int_equal(conn_slots_used(s), CONN_SLOTS_MAX);
	assert_false(conn_slots_room(s));
	assert_int_equal(conn_slots_take(s, 1, true), -1);
}

/* A forked handler flags itself through the shared map; the parent sees it. */
static void test_flag_from_a_handler(void **state)
{
	struct conn_slots *s = *state;
	int to_child[2];
	int to_parent[2];
	int status;
	char c = 0;
	int idx = conn_slots_take(s, 1001, true);
	pid_t pid;

	assert_true(idx >= 0);
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(to_parent), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		conn_slot_enter_handler(s, idx);
		conn_slot_waiting(true);
		if (write(to_parent[1], "w", 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(1);
		conn_slot_waiting(false);
		_exit(write(to_parent[1], "a", 1) == 1 ? 0 : 1);
	}
	conn_slots_set_pid(s, idx, pid);
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	assert_int_equal(conn_slots_active(s), 0);
	assert_int_equal(write(to_child[1], "go", 1), 1);
	assert_int_equal(read(to_parent[0], &c, 1), 1);
	assert_int_equal(conn_slots_active(s), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(conn_slots_free_pid(s, pid));
	assert_int_equal(conn_slots_used(s), 0);
	/* Outside a handler the call changes nothing. */
	conn_slot_waiting(true);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_per_uid_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiters_leave_the_working_pool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_total_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flag_from_a_handler, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
