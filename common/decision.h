/*
 * What a rule table answers: allowed, or refused by a named rule with the
 * sentence the asker reads.
 */
#ifndef POSTERN_DECISION_H
#define POSTERN_DECISION_H

#include <stdbool.h>

#define DECISION_REASON_MAX 1024

struct decision {
	const char *rule;                 /* the refusing rule's name, NULL when allowed */
	char reason[DECISION_REASON_MAX];
};

/*
 * Write a refusal's sentence; always false, so that a rule can end with
 * `return decision_refuse(...)`. The table runner names the rule.
 */
bool decision_refuse(struct decision *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void decision_allow(struct decision *d);

#endif
