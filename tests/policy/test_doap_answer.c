/*
 * The DOAP parser's answer (policy/doap_answer.c), which root reads from
 * the confined child: every parse of the corpus-like cases survives the
 * round trip exactly (absent ids and names included), a refusal's text
 * comes back printable, and every malformed answer is refused, never half
 * read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "doap_answer.h"

static void decode_refused(const char *buf, size_t len, const char *why)
{
	struct doap_maintainers dm;
	struct pst_err e = { "" };

	assert_int_equal(doap_answer_decode(buf, len, "x.doap", &dm, &e), -EINVAL);
	assert_null(dm.v);
	assert_int_equal(dm.n, 0);
	assert_non_null(strstr(e.msg, why));
}

static void test_round_trip(void **state)
{
	char id1[] = "ebassi", id3[] = "otte", name1[] = "Emmanuele Bassi";
	char name2[] = "Nobody \033[2J Here";
	char *ids[] = { id1, NULL, id3 };
	char *names[] = { name1, name2, NULL };
	struct doap_person v[3];
	struct doap_maintainers in = { v, 3 }, out;
	struct pst_err e = { "" };
	char *buf;
	size_t len, i;

	(void)state;
	for (i = 0; i < 3; i++) {
		v[i].userid = ids[i];
		v[i].name = names[i];
	}
	assert_int_equal(doap_answer_encode(0, &in, &e, &buf, &len), 0);
	assert_int_equal(doap_answer_decode(buf, len, "x.doap", &out, &e), 0);
	assert_int_equal(out.n, 3);
	for (i = 0; i < 3; i++) {
		if (ids[i] == NULL)
			assert_null(out.v[i].userid);
		else
			assert_string_equal(out.v[i].userid, ids[i]);
		if (names[i] == NULL)
			assert_null(out.v[i].name);
		else
			assert_string_equal(out.v[i].name, names[i]);
	}
	doap_maintainers_free(&out);
	free(buf);
}

static void test_empty_list(void **state)
{
	struct doap_maintainers in = { NULL, 0 }, out;
	struct pst_err e = { "" };
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(doap_answer_encode(0, &in, &e, &buf, &len), 0);
	assert_int_equal(len, 1);
	assert_int_equal(doap_answer_decode(buf, len, "x.doap", &out, &e), 0);
	assert_int_equal(out.n, 0);
	doap_maintainers_free(&out);
	free(buf);
}

static void test_refusal_made_printable(void **state)
{
	struct pst_err why = { "x.doap:3:1: a DOCTYPE is not allowed \033]0;title\007" };
	struct doap_maintainers out;
	struct pst_err e = { "" };
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(doap_answer_encode(-EINVAL, NULL, &why, &buf, &len), 0);
	assert_int_equal(doap_answer_decode(buf, len, "x.doap", &out, &e), -EINVAL);
	assert_string_equal(e.msg, "x.doap:3:1: a DOCTYPE is not allowed ?]0;title?");
	assert_null(out.v);
	free(buf);
}

static void test_malformed_refused(void **state)
{
	char *many;
	size_t i;

	(void)state;
	decode_refused("", 0, "no answer or one too large");
	decode_refused("X", 1, "malformed answer");
	decode_refused("M=ebassi", 8, "malformed answer");          /* no NUL */
	decode_refused("M=ebassi\0", 9, "malformed answer");        /* a name is missing */
	decode_refused("M=ebassi\0?", 10, "malformed answer");      /* not a field */
	decode_refused("M--\0", 4, "malformed answer");             /* trailing byte */
	decode_refused("E", 1, "malformed refusal");
	decode_refused("Ea\0b", 4, "malformed refusal");
	many = malloc(1 + 2 * (DOAP_MAINTAINERS_MAX + 1));
	assert_non_null(many);
	many[0] = 'M';
	for (i = 1; i < 1 + 2 * (DOAP_MAINTAINERS_MAX + 1); i++)
		many[i] = '-';
	decode_refused(many, 1 + 2 * (DOAP_MAINTAINERS_MAX + 1), "too many maintainers");
	decode_refused(many, DOAP_ANSWER_MAX + 1, "one too large");
	free(many);
}

static void test_at_the_cap(void **state)
{
	struct doap_maintainers out;
	struct pst_err e = { "" };
	char *buf = malloc(1 + 2 * DOAP_MAINTAINERS_MAX);
	size_t i;

	(void)state;
	assert_non_null(buf);
	buf[0] = 'M';
	for (i = 1; i < 1 + 2 * DOAP_MAINTAINERS_MAX; i++)
		buf[i] = '-';
	assert_int_equal(doap_answer_decode(buf, 1 + 2 * DOAP_MAINTAINERS_MAX, "x.doap", &out, &e), 0);
	assert_int_equal(out.n, DOAP_MAINTAINERS_MAX);
	doap_maintainers_free(&out);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_refusal_made_printable),
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_at_the_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
