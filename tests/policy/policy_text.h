/*
 * For the tests that parse postern.yaml text (include after cmocka.h): the
 * policy a text gives, or the one error it must give, with no policy.
 */
#ifndef POSTERN_TEST_POLICY_TEXT_H
#define POSTERN_TEST_POLICY_TEXT_H

#include <string.h>

#include "policy.h"

static inline struct policy *parse_ok(const char *text)
{
	struct policy *p = NULL;
	struct pst_err e;

	if (policy_parse(text, strlen(text), "p.yaml", &p, &e) != 0)
		fail_msg("%s", e.msg);
	return p;
}

/* label names the input in the failure message. */
static inline void parse_fails(const char *label, const char *text, const char *want)
{
	struct policy *p = (struct policy *)&p;
	struct pst_err e = { "" };
	int rc = policy_parse(text, strlen(text), "p.yaml", &p, &e);

	if (rc == 0 || strcmp(e.msg, want) != 0)
		fail_msg("%s: rc %d, got '%s', expected '%s'", label, rc, e.msg, want);
	assert_null(p);
}

#endif
