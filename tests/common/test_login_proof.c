/* The login proof's record and the /proc stat line: format, strict parse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "login_proof.h"

static const char good[] =
	"postern-login-proof 1\n"
	"uid=1001\n"
	"user=alice\n"
	"connection=192.0.2.7 50122 192.0.2.1 22\n"
	"monitor=4242\n"
	"monitor_start=123456789\n"
	"boot_id=0e6c8f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6\n"
	"expires=98765\n"
	"method=totp\n";

static void test_parse_good(void **state)
{
	struct login_proof p;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(login_proof_parse(good, strlen(good), &p, &e), 0);
	assert_int_equal(p.uid, 1001);
	assert_string_equal(p.user, "alice");
	assert_string_equal(p.connection, "192.0.2.7 50122 192.0.2.1 22");
	assert_int_equal(p.monitor, 4242);
	assert_true(p.monitor_start == 123456789ull);
	assert_string_equal(p.boot_id, "0e6c8f3a-1b2c-4d5e-8f90-a1b2c3d4e5f6");
	assert_true(p.expires == 98765);
	assert_string_equal(p.method, "totp");
}

static void test_format_round_trip(void **state)
{
	struct login_proof p;
	struct login_proof q;
	char text[LOGIN_PROOF_MAX + 1];
	int len;

	(void)state;
	assert_int_equal(login_proof_parse(good, strlen(good), &p, NULL), 0);
	len = login_proof_format(&p, text, sizeof(text));
	assert_int_equal(len, (int)strlen(good));
	assert_memory_equal(text, good, strlen(good));
	assert_int_equal(login_proof_parse(text, (size_t)len, &q, NULL), 0);
	assert_memory_equal(&p, &q, sizeof(p));
}

/* Each one changes the good record in one way; each must be refused. */

/* A TAP comment is one line: show the edits' newlines as \n. */
static const char *one_line(const char *s, char *out, size_t len)
{
	size_t k = 0;

	for (; *s != '\0' && k + 3 < len; s++) {
		if (*s == '\n') {
			out[k++] = '\\';
			out[k++] = 'n';
		} else {
			out[k++] = *s;
		}
	}
	out[k] = '\0';
	return out;
}
static void test_parse_refuses(void **state)
{
	static const struct { const char *from, *to; } edits[] = {
		{ "postern-login-proof 1", "postern-login-proof 2" },
		{ "uid=1001", "uid=-1" },
		{ "uid=1001", "uid=01001" },
		{ "uid=1001", "uid=4294967295" },
		{ "uid=1001", "uid=" },
		{ "user=alice", "user=Alice" },
		{ "user=alice", "user=al ice" },
		{ "192.0.2.1 22", "192.0.2.1" },
		{ "192.0.2.1 22", "192.0.2.1  22" },
		{ "192.0.2.1 22", "192.0.2.1 22 9" },
		{ "192.0.2.7", "192.0.2.7;" },
		{ "monitor=4242", "monitor=1" },
		{ "monitor=4242", "monitor=99999999999" },
		{ "monitor_start=123456789", "monitor_start=12x" },
		{ "boot_id=0e6c8f3a", "boot_id=0E6C8F3A" },
		{ "4d5e-8f90", "4d5e8f90-" },
		{ "expires=98765", "expires=99999999999999999999" },
		{ "method=totp", "method=TOTP" },
		{ "method=totp", "method=" },
		{ "user=alice\nconnection", "connection" },
		{ "method=totp\n", "method=totp" },
		{ "method=totp\n", "method=totp\nextra=1\n" },
		{ "uid=1001\nuser=alice", "user=alice\nuid=1001" },
	};
	char text[2048], from[128], to[128];
	struct login_proof p;
	struct pst_err e = { "" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		const char *at = strstr(good, edits[i].from);
		size_t head;

		assert_non_null(at);
		head = (size_t)(at - good);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)head, good, edits[i].to,
			 at + strlen(edits[i].from));
		print_message("# refuse: %s -> %s\n", one_line(edits[i].from, from, sizeof(from)),
			      one_line(edits[i].to, to, sizeof(to)));
		assert_int_not_equal(login_proof_parse(text, strlen(text), &p, &e), 0);
		assert_true(e.msg[0] != '\0');
		assert_int_equal(p.uid, 0);
	}
}

static void test_parse_refuses_nul(void **state)
{
	char text[sizeof(good)];
	struct login_proof p;

	(void)state;
	memcpy(text, good, sizeof(good));
	text[strstr(good, "alice") - good + 2] = '\0';
	assert_int_not_equal(login_proof_parse(text, sizeof(good) - 1, &p, NULL), 0);
}

static void test_proc_stat_parse(void **state)
{
	/* A command name with spaces and ')' of its own: fields count after the last ')'. */
	static const char line[] = "4242 (sshd: a) b (c)) S 17 4242 4242 0 -1 4194560 "
				   "1 2 3 4 5 6 7 8 20 0 1 0 777000 9 10\n";
	unsigned long long start = 0;
	pid_t ppid = 0;

	(void)state;
	assert_int_equal(proc_stat_parse(line, strlen(line), &ppid, &start, NULL), 0);
	assert_int_equal(ppid, 17);
	assert_true(start == 777000ull);
	assert_int_not_equal(proc_stat_parse("4242 sshd S 17", 14, &ppid, &start, NULL), 0);
	assert_int_not_equal(proc_stat_parse("4242 (sshd) S 17 1 2", 20, &ppid, &start, NULL), 0);
	assert_int_not_equal(proc_stat_parse("4242 (x) S -1 1 1 0 -1 1 1 2 3 4 5 6 7 8 20 0 1 0 5 9",
					     52, &ppid, &start, NULL), 0);
}

static void test_proc_stat_read_self(void **state)
{
	unsigned long long start = 0;
	pid_t ppid = 0;

	(void)state;
	assert_int_equal(proc_stat_read(getpid(), &ppid, &start, NULL), 0);
	assert_int_equal(ppid, getppid());
	assert_true(start > 0);
}

static void test_fill_and_boot_id(void **state)
{
	char boot[LOGIN_PROOF_BOOT_ID_LEN + 1];
	struct login_proof p;
	struct pst_err e = { "" };

	(void)state;
	assert_int_equal(boot_id_read(boot, &e), 0);
	assert_int_equal(login_proof_fill(&p, 1001, "alice", "192.0.2.7 1 192.0.2.1 22", getpid(),
					  60, "recovery", &e), 0);
	assert_string_equal(p.boot_id, boot);
	assert_int_equal(p.monitor, getpid());
	assert_int_not_equal(login_proof_fill(&p, 1001, "alice", NULL, getpid(), 60, "totp", &e), 0);
	assert_int_not_equal(login_proof_fill(&p, 1001, "alice", "1 2 3", getpid(), 60, "totp", &e), 0);
	assert_int_not_equal(login_proof_fill(&p, 1001, "alice", "1 2 3 4", 1, 60, "totp", &e), 0);
	assert_int_not_equal(login_proof_fill(&p, 1001, "alice", "1 2 3 4", getpid(),
					      LOGIN_PROOF_LIFETIME_MAX + 1, "totp", &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_parse_refuses_nul),
		cmocka_unit_test(test_proc_stat_parse),
		cmocka_unit_test(test_proc_stat_read_self),
		cmocka_unit_test(test_fill_and_boot_id),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
